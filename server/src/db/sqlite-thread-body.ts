import type SqliteDriver from 'better-sqlite3';
import type { readlinkSync } from 'node:fs';
import type { setPriority } from 'node:os';
import type { MessagePort } from 'node:worker_threads';

/** What a thread opens: its own connection to the main database's file. */
export interface SqliteThreadData {
  /** better-sqlite3's entry, resolved by the main thread (the thread has no module of its own). */
  readonly driverPath: string;
  readonly file: string;
  readonly readonly: boolean;
  readonly busyTimeoutMs: number;
  /** The thread's nice value (Linux): above 0, the relay's thread gets the CPU first when both want it. */
  readonly niceness: number;
  /** SQLite's wal_autocheckpoint for this connection (0: never inside its own commits). */
  readonly autocheckpointPages?: number | undefined;
}

export interface SqliteThreadRequest {
  readonly id: number;
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

export type SqliteThreadReply =
  | {
      readonly id: number;
      readonly rows: unknown[];
      readonly changes?: number;
      readonly lastInsertRowid?: number | bigint;
    }
  | { readonly id: number; readonly error: { readonly message: string; readonly code: unknown } };

/** Distinct statements kept compiled in the thread; past this the cache starts over. */
const STATEMENT_CACHE_SIZE = 200;

/**
 * The body of a thread that owns one better-sqlite3 connection and runs the statements it is sent,
 * one at a time, answering each with its rows (or its changes) or its error.
 *
 * It is started from its source text (`new Worker(source, { eval: true })`), so it must not close
 * over anything of this module: everything it uses comes in as an argument. That keeps one code path
 * for the built server (tsc's output) and the tests (vitest's transform of this file), with no
 * worker file to find on disk.
 */
export const sqliteThreadBody = (
  load: (path: string) => unknown,
  port: MessagePort,
  data: SqliteThreadData,
  cacheSize: number,
): void => {
  if (data.niceness > 0) {
    try {
      // A thread's own id is the last part of /proc/thread-self; setpriority() takes it on Linux.
      const link = (load('node:fs') as { readlinkSync: typeof readlinkSync }).readlinkSync(
        '/proc/thread-self',
      );
      const os = load('node:os') as { setPriority: typeof setPriority };
      os.setPriority(Number(String(link).split('/').pop()), data.niceness);
    } catch {
      // Not Linux: the thread keeps the process's priority.
    }
  }
  const Driver = load(data.driverPath) as typeof SqliteDriver;
  const connection = new Driver(data.file, {
    readonly: data.readonly,
    fileMustExist: true,
    timeout: data.busyTimeoutMs,
  });
  connection.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
  if (!data.readonly) {
    connection.pragma('synchronous = NORMAL');
    connection.pragma('foreign_keys = OFF');
  }
  if (data.autocheckpointPages !== undefined)
    connection.pragma(`wal_autocheckpoint = ${data.autocheckpointPages}`);
  const statements = new Map<string, SqliteDriver.Statement>();
  const prepared = (sqlText: string): SqliteDriver.Statement => {
    let statement = statements.get(sqlText);
    if (!statement) {
      if (statements.size >= cacheSize) statements.clear();
      statement = connection.prepare(sqlText);
      statements.set(sqlText, statement);
    }
    return statement;
  };
  // better-sqlite3 cannot bind booleans: 0 / 1, as on the main connection.
  const bindable = (value: unknown): unknown => (typeof value === 'boolean' ? Number(value) : value);
  port.on('message', (request: SqliteThreadRequest | 'close') => {
    if (request === 'close') {
      connection.close();
      port.close();
      return;
    }
    let reply: SqliteThreadReply;
    try {
      const statement = prepared(request.sql);
      const parameters = request.parameters.map(bindable);
      if (statement.reader) reply = { id: request.id, rows: statement.all(...parameters) };
      else {
        const result = statement.run(...parameters);
        reply = {
          id: request.id,
          rows: [],
          changes: result.changes,
          lastInsertRowid: result.lastInsertRowid,
        };
      }
    } catch (error) {
      const failure = error as { message?: unknown; code?: unknown };
      reply = {
        id: request.id,
        error: { message: String(failure.message ?? error), code: failure.code },
      };
    }
    port.postMessage(reply);
  });
};

/** The thread's source: the body, called with the thread's own `require`, port and data. */
export const sqliteThreadSource = (): string =>
  `const threads = require('node:worker_threads');\n(${sqliteThreadBody.toString()})(require, threads.parentPort, threads.workerData, ${STATEMENT_CACHE_SIZE});`;
