import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dsn.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

interface LogIndex {
  readonly name: string;
  readonly columns: readonly string[];
  /** Only where the dialect's existing index cannot give the order (see below). */
  readonly dialects: readonly Dialect[];
}

/**
 * The indexes the console's log lists need besides one-api's (lists are newest first, by id):
 * `(username, id)` (one-api's `index_username_model_name` leads with the model) and `(type, id)`
 * (a rare type would otherwise be searched for along the whole primary key). On SQLite and InnoDB a
 * secondary index ends with the row's id, so one-api's `user_id`, `token_name`, `model_name` and
 * `channel_id` indexes already give id order; PostgreSQL's do not, so it gets `(x, id)` for each.
 * The same indexes serve the statistics' raw edges (`x = ? AND id BETWEEN ? AND ?`).
 */
export const LOG_INDEXES: readonly LogIndex[] = [
  { name: 'idx_logs_username_id', columns: ['username', 'id'], dialects: ['sqlite', 'postgres', 'mysql'] },
  { name: 'idx_logs_type_id', columns: ['type', 'id'], dialects: ['sqlite', 'postgres', 'mysql'] },
  { name: 'idx_logs_user_id_id', columns: ['user_id', 'id'], dialects: ['postgres'] },
  { name: 'idx_logs_token_name_id', columns: ['token_name', 'id'], dialects: ['postgres'] },
  { name: 'idx_logs_model_name_id', columns: ['model_name', 'id'], dialects: ['postgres'] },
  { name: 'idx_logs_channel_id_id', columns: ['channel_id', 'id'], dialects: ['postgres'] },
];

const quote = (name: string, dialect: Dialect) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
const columnList = (index: LogIndex, dialect: Dialect) =>
  index.columns.map((column) => quote(column, dialect)).join(', ');

const mysqlHasIndex = async (db: AnyDb, name: string): Promise<boolean> => {
  const found = await sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM information_schema.statistics
    WHERE table_schema = DATABASE() AND table_name = 'logs' AND index_name = ${name}`.execute(db);
  return Number(found.rows[0]?.n ?? 0) > 0;
};

/**
 * Creates one index on a logs table that may hold millions of rows, never rewriting a row nor
 * stopping its writers for long:
 * - PostgreSQL: CONCURRENTLY (writers go on while it builds; hence outside a transaction). A build
 *   that died leaves an INVALID index of the name, which is dropped and built again.
 * - MySQL / MariaDB: ALGORITHM=INPLACE, LOCK=NONE (online DDL: writers go on); MySQL has no
 *   CREATE INDEX IF NOT EXISTS, so the catalogue is asked first.
 * - SQLite: IF NOT EXISTS. The build holds the write lock (SQLite has one writer); it runs once, at
 *   the master's start, before it serves.
 */
/** A session lock of PostgreSQL's, taken without waiting: the instance holding it builds the indexes. */
const PG_INDEX_LOCK = 7_405_112_901;

const pgIndexState = async (db: AnyDb, name: string): Promise<'missing' | 'valid' | 'invalid'> => {
  const found = await sql<{ valid: boolean }>`SELECT i.indisvalid AS valid FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = ${name}`.execute(db);
  const row = found.rows[0];
  return row === undefined ? 'missing' : row.valid ? 'valid' : 'invalid';
};

/**
 * PostgreSQL: CREATE INDEX CONCURRENTLY (the writers go on while it builds), which cannot run in a
 * transaction, hence not in Kysely's migrations. One instance builds, the one holding a session
 * lock taken without waiting: holding a lock others wait for while CONCURRENTLY waits for their
 * transactions would deadlock. An INVALID index found by the lock's holder is a build that died
 * (a crash, a cancelled start): it is dropped and built again.
 */
const createPostgresIndexes = (db: AnyDb, indexes: readonly LogIndex[]): Promise<void> =>
  db.connection().execute(async (connection) => {
    const locked = await sql<{
      locked: boolean;
    }>`SELECT pg_try_advisory_lock(${sql.lit(PG_INDEX_LOCK)}) AS locked`.execute(connection);
    if (locked.rows[0]?.locked !== true) return;
    try {
      for (const index of indexes) {
        const state = await pgIndexState(connection, index.name);
        if (state === 'valid') continue;
        const name = quote(index.name, 'postgres');
        if (state === 'invalid')
          await sql.raw(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`).execute(connection);
        await sql
          .raw(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON "logs" (${columnList(index, 'postgres')})`)
          .execute(connection);
      }
    } finally {
      await sql`SELECT pg_advisory_unlock(${sql.lit(PG_INDEX_LOCK)})`.execute(connection);
    }
  });

/** MySQL's "Duplicate key name": another instance created the index first. */
const isDuplicateIndex = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { errno?: unknown }).errno === 1061;

/**
 * MySQL / MariaDB: online DDL (ALGORITHM=INPLACE, LOCK=NONE: the writers go on); MySQL has no
 * CREATE INDEX IF NOT EXISTS, so the catalogue is asked first, and losing a race to another
 * instance is fine.
 */
const createMysqlIndexes = async (db: AnyDb, indexes: readonly LogIndex[]): Promise<void> => {
  for (const index of indexes) {
    if (await mysqlHasIndex(db, index.name)) continue;
    await sql
      .raw(
        `CREATE INDEX ${quote(index.name, 'mysql')} ON \`logs\` (${columnList(index, 'mysql')}) ALGORITHM=INPLACE LOCK=NONE`,
      )
      .execute(db)
      .catch((error: unknown) => {
        if (!isDuplicateIndex(error)) throw error;
      });
  }
};

/**
 * SQLite: IF NOT EXISTS. The build holds the write lock (SQLite has one writer); it runs at the
 * master's start, before it serves.
 */
const createSqliteIndexes = async (db: AnyDb, indexes: readonly LogIndex[]): Promise<void> => {
  for (const index of indexes)
    await sql
      .raw(
        `CREATE INDEX IF NOT EXISTS ${quote(index.name, 'sqlite')} ON "logs" (${columnList(index, 'sqlite')})`,
      )
      .execute(db);
};

const CREATORS: Record<Dialect, (db: AnyDb, indexes: readonly LogIndex[]) => Promise<void>> = {
  postgres: createPostgresIndexes,
  mysql: createMysqlIndexes,
  sqlite: createSqliteIndexes,
};

/**
 * Adds the console's indexes to the logs table when they are missing (run by the master at every
 * start: a look at the catalogue when they are there). They are not in Kysely's migrations, which
 * run in a transaction on PostgreSQL, where a plain CREATE INDEX would stop every writer of the logs
 * (other instances, one-api) for the whole build over millions of rows. No row is rewritten and
 * none of one-api's indexes is touched; a table without the logs is left alone.
 */
export const ensureLogIndexes = async (db: AnyDb, dialect: Dialect): Promise<void> => {
  const logs = (await db.introspection.getTables()).some((table) => table.name === 'logs');
  if (!logs) return;
  await CREATORS[dialect](
    db,
    LOG_INDEXES.filter((index) => index.dialects.includes(dialect)),
  );
};
