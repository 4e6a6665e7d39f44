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
  /** While a transaction is open: ends the hold on the main connection its BEGIN took. */
  #release: (() => void) | undefined;
  #held: Promise<unknown> | undefined;

  constructor(options: SqliteThreadDialectOptions) {
    this.#thread = options.thread;
    this.#gate = options.gate ?? ungated;
    this.#afterWrite = options.afterWrite;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { sql, parameters } = compiledQuery;
    if (this.#release) return toQueryResult<R>(await this.#thread.execute(sql, parameters));
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

  /**
   * BEGIN IMMEDIATE once the gate gives this connection the main connection's turn, which it keeps
   * until COMMIT or ROLLBACK: the statements between run without waiting again, and nothing else
   * writes meanwhile. So a transaction here must not wait for the main connection itself.
   */
  async begin(): Promise<void> {
    await new Promise<void>((entered) => {
      this.#held = this.#gate(
        () =>
          new Promise<void>((release) => {
            this.#release = release;
            entered();
          }),
      );
    });
    try {
      await this.#thread.execute('BEGIN IMMEDIATE', []);
    } catch (error) {
      await this.#end();
      throw error;
    }
  }

  async finish(statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    try {
      await this.#thread.execute(statement, []);
    } finally {
      await this.#end();
    }
    if (this.#afterWrite && statement === 'COMMIT') await this.#afterWrite();
  }

  async #end(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
    await this.#held;
    this.#held = undefined;
  }
}

/**
 * Each statement goes to the thread by itself (autocommit), but for transactions on a gated
 * thread (the maintenance one): there the gate is held from BEGIN to COMMIT, so that no other
 * statement of the process runs inside it. The read thread runs single statements only.
 */
class SqliteThreadDriver implements Driver {
  readonly #options: SqliteThreadDialectOptions;

  constructor(options: SqliteThreadDialectOptions) {
    this.#options = options;
  }

  init(): Promise<void> {
    return Promise.resolve();
  }

  /** A connection object per use (they share the thread): a transaction's state is its own. */
  acquireConnection(): Promise<DatabaseConnection> {
    return Promise.resolve(new SqliteThreadConnection(this.#options));
  }

  beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.#options.gate || !(connection instanceof SqliteThreadConnection))
      return Promise.reject(new Error('a read-only SQLite thread runs single statements, not transactions'));
    return connection.begin();
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as SqliteThreadConnection).finish('COMMIT');
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as SqliteThreadConnection).finish('ROLLBACK');
  }

  releaseConnection(): Promise<void> {
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    return this.#options.thread.close();
  }
}

/** Kysely's SQLite dialect with statements run in a worker thread (`createSqliteThread`). */
export const sqliteThreadDialect = (options: SqliteThreadDialectOptions): Dialect => ({
  createAdapter: () => new SqliteAdapter(),
  createDriver: () => new SqliteThreadDriver(options),
  createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
  createQueryCompiler: () => new SqliteQueryCompiler(),
});
