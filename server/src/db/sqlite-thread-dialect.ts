import {
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import type { SqliteThread, SqliteThreadResult } from './sqlite-thread.js';

/** Runs one statement in the thread at a time the caller chooses (see `gate` below). */
export type SqliteGate = <T>(work: () => Promise<T>) => Promise<T>;

export interface SqliteThreadDialectOptions {
  readonly thread: SqliteThread;
  /**
   * Wraps each statement: the write thread's statements run while the main connection is held, so
   * the main thread never waits on SQLite's write lock (its better-sqlite3 calls are synchronous and
   * would block the event loop); its own queries wait for their turn asynchronously instead.
   */
  readonly gate?: SqliteGate;
  /** Runs after each statement that changed rows, outside the gate, before the next statement. */
  readonly afterWrite?: () => Promise<void>;
}

const toQueryResult = <R>(result: SqliteThreadResult): QueryResult<R> => ({
  rows: result.rows as R[],
  ...(result.changes === undefined ? {} : { numAffectedRows: BigInt(result.changes) }),
  ...(result.lastInsertRowid === undefined ? {} : { insertId: BigInt(result.lastInsertRowid) }),
});

const ungated: SqliteGate = (work) => work();

/** Rows per chunk when a caller streams: the thread answers whole results, handed out in pieces. */
const STREAM_CHUNK = 100;

class SqliteThreadConnection implements DatabaseConnection {
  readonly #thread: SqliteThread;
  readonly #gate: SqliteGate;
  readonly #afterWrite: (() => Promise<void>) | undefined;

  constructor(options: SqliteThreadDialectOptions) {
    this.#thread = options.thread;
    this.#gate = options.gate ?? ungated;
    this.#afterWrite = options.afterWrite;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiledQuery;
    const result = await this.#gate(() => this.#thread.execute(sql, parameters));
    if (this.#afterWrite && (result.changes ?? 0) > 0) await this.#afterWrite();
    return toQueryResult<R>(result);
  }

  async *streamQuery<R>(
    compiledQuery: CompiledQuery,
    chunkSize = STREAM_CHUNK,
  ): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiledQuery.query)) throw new Error('only SELECT statements can be streamed');
    const { rows } = await this.executeQuery<R>(compiledQuery);
    for (let start = 0; start < rows.length; start += chunkSize)
      yield { rows: rows.slice(start, start + chunkSize) };
  }
}

/**
 * Each statement goes to the thread by itself (autocommit). There are no transactions: a
 * transaction would span several messages, and the main connection's turn would have to be held
 * across them; what runs here does not need one.
 */
class SqliteThreadDriver implements Driver {
  readonly #thread: SqliteThread;
  readonly #connection: SqliteThreadConnection;

  constructor(options: SqliteThreadDialectOptions) {
    this.#thread = options.thread;
    this.#connection = new SqliteThreadConnection(options);
  }

  init(): Promise<void> {
    return Promise.resolve();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve(this.#connection);
  }

  beginTransaction(): Promise<void> {
    return Promise.reject(
      new Error('a database on an SQLite thread runs single statements, not transactions'),
    );
  }

  commitTransaction(): Promise<void> {
    return this.beginTransaction();
  }

  rollbackTransaction(): Promise<void> {
    return this.beginTransaction();
  }

  releaseConnection(): Promise<void> {
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    return this.#thread.close();
  }
}

/** Kysely's SQLite dialect with statements run in a worker thread (`createSqliteThread`). */
export const sqliteThreadDialect = (options: SqliteThreadDialectOptions): Dialect => ({
  createAdapter: () => new SqliteAdapter(),
  createDriver: () => new SqliteThreadDriver(options),
  createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  createQueryCompiler: () => new SqliteQueryCompiler(),
});
