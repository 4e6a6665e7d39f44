import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDriver from 'better-sqlite3';
import { Kysely, MysqlDialect, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import { dialectOf, parseMysqlDsn, type Dialect } from './dsn.js';
import { openSqliteThreads } from './sqlite-threads.js';
import type { Tables } from './tables.js';
import type PgModule from 'pg';

export interface Database {
  readonly db: Kysely<Tables>;
  /** Long reads (the console's log lists, stats, dashboards): off the relay's thread on SQLite; else `db`. */
  readonly readDb: Kysely<Tables>;
  /** Batched bulk deletes (log cleanup): off the relay's thread on SQLite; else `db`. */
  readonly maintenanceDb: Kysely<Tables>;
  readonly dialect: Dialect;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  readonly dsn: string;
  readonly sqlitePath: string;
  readonly sqliteBusyTimeoutMs: number;
  readonly maxConnections: number;
  readonly logQuery?: ((sql: string, ms: number) => void) | undefined;
}

/** PostgreSQL answers int8 and numeric (SUM of bigint) as strings: read them as numbers. */
const PG_NUMERIC_OIDS = new Set([20, 1700]);
const pgTypes = (pg: typeof PgModule) => ({
  getTypeParser: (oid: number, format?: 'text' | 'binary'): ((value: string) => unknown) =>
    PG_NUMERIC_OIDS.has(oid)
      ? (value: string) => Number(value)
      : (pg.types.getTypeParser(oid, format ?? 'text') as (value: string) => unknown),
});

/** Distinct statements kept compiled; past this the cache starts over (schema changes are rare). */
const STATEMENT_CACHE_SIZE = 1000;

/** better-sqlite3 cannot bind booleans: bind them as 0 / 1 like GORM does. */
const sqliteParameter = (value: unknown): unknown => (typeof value === 'boolean' ? Number(value) : value);

const openSqlite = (path: string, busyTimeoutMs: number): SqliteDialect => {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const driver = new SqliteDriver(path, { timeout: busyTimeoutMs });
  driver.pragma('journal_mode = WAL');
  driver.pragma(`busy_timeout = ${busyTimeoutMs}`);
  driver.pragma('synchronous = NORMAL');
  driver.pragma('foreign_keys = OFF');
  // Kysely asks for a statement per query; the same SQL text reuses its compiled statement.
  const statements = new Map<string, SqliteDriver.Statement>();
  const prepared = (sqlText: string): SqliteDriver.Statement => {
    let statement = statements.get(sqlText);
    if (!statement) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statement = driver.prepare(sqlText);
      statements.set(sqlText, statement);
    }
    return statement;
  };
  return new SqliteDialect({
    database: {
      close: () => driver.close(),
      prepare: (sqlText: string) => {
        const statement = prepared(sqlText);
        return {
          reader: statement.reader,
          all: (parameters: readonly unknown[]) => statement.all(...parameters.map(sqliteParameter)),
          run: (parameters: readonly unknown[]) => statement.run(...parameters.map(sqliteParameter)),
          iterate: (parameters: readonly unknown[]) => statement.iterate(...parameters.map(sqliteParameter)),
        };
      },
    },
  });
};

/** The PostgreSQL and MySQL drivers load only when used (an SQLite instance never pays for them). */
const openPostgres = async (dsn: string, max: number): Promise<PostgresDialect> => {
  const { default: pg } = await import('pg');
  // JIT off (a session setting, sent at connect): the console's roll-up reads are one UNION ALL of
  // many small branches whose estimated cost passes jit_above_cost, and compiling them took 2.4 s
  // of a 2.3 s answer at 10M log rows (EXPLAIN ANALYZE: 2447 functions); no statement Sluice sends
  // runs long enough to win it back. A DSN's own `options` replace this.
  const pool = new pg.Pool({ connectionString: dsn, max, types: pgTypes(pg), options: '-c jit=off' });
  // An idle client the server drops (restart, failover, terminated backend) makes the pool emit
  // 'error' after discarding it; with no listener that event would crash the process.
  pool.on('error', () => undefined);
  // A client checked out (between two statements of a transaction, say) whose connection breaks
  // emits 'error' itself, and the pool listens only to idle ones: without this the process dies.
  // Its next query fails instead (a 503), and the pool discards it when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new PostgresDialect({ pool });
};

const openMysql = async (dsn: string, max: number): Promise<MysqlDialect> => {
  const { createPool } = await import('mysql2');
  const connection = parseMysqlDsn(dsn);
  const pool = createPool({
    ...connection,
    connectionLimit: max,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    charset: 'utf8mb4',
    timezone: 'Z',
  });
  // A pooled connection that breaks while idle or checked out emits 'error': its next use fails
  // instead (a 503), and mysql2 drops it from the pool. Without a listener the process would die.
  pool.on('connection', (connection) => connection.on('error', () => undefined));
  return new MysqlDialect({ pool });
};

/** Opens the database a DSN names, with every driver quirk normalised here and nowhere else. */
export const openDatabase = async (options: DatabaseOptions): Promise<Database> => {
  const dialect = dialectOf(options.dsn);
  const kyselyDialect =
    dialect === 'sqlite'
      ? openSqlite(options.sqlitePath, options.sqliteBusyTimeoutMs)
      : dialect === 'postgres'
        ? await openPostgres(options.dsn, options.maxConnections)
        : await openMysql(options.dsn, options.maxConnections);
  const logQuery = options.logQuery;
  const log = logQuery && ((event: LogEvent) => logQuery(event.query.sql, event.queryDurationMillis));
  const db = new Kysely<Tables>({ dialect: kyselyDialect, ...(log ? { log } : {}) });
  // A file's other connections run in worker threads (sqlite-threads.ts); a memory database has none.
  const threads =
    dialect === 'sqlite' && options.sqlitePath !== ':memory:'
      ? await openSqliteThreads(db, options.sqlitePath, options.sqliteBusyTimeoutMs, log)
      : undefined;
  return {
    db,
    readDb: threads?.readDb ?? db,
    maintenanceDb: threads?.maintenanceDb ?? db,
    dialect,
    close: async () => {
      await threads?.close();
      await db.destroy();
    },
  };
};

/** Booleans come back as 0/1 from SQLite and MySQL. */
export const toBool = (value: boolean | number | null | undefined): boolean => value === true || value === 1;
