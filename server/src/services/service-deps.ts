import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';
import type { Config } from '../config/env.js';
import type { Dialect } from '../db/dsn.js';
import type { Tables } from '../db/tables.js';
import type { OptionStore } from './option-store.js';

/** What every service is built from; passed in, never imported as a singleton. */
export interface ServiceDeps {
  readonly config: Config;
  readonly db: Kysely<Tables>;
  readonly dialect: Dialect;
  /** The logs table's database (the main one unless LOG_SQL_DSN is set). */
  readonly logDb: Kysely<Tables>;
  /** The logs' database's dialect (LOG_SQL_DSN may name another kind than SQL_DSN). */
  readonly logDialect: Dialect;
  /** The logs' database for the console's long reads (lists, stats, charts): off the relay's thread on SQLite. */
  readonly logReadDb: Kysely<Tables>;
  /** The logs' database for batched cleanup: off the relay's thread on SQLite. */
  readonly logMaintenanceDb: Kysely<Tables>;
  readonly cache: Cache;
  readonly options: OptionStore;
  readonly logger: Logger;
}
