import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import {
  sqliteThreadSource,
  type SqliteThreadData,
  type SqliteThreadReply,
  type SqliteThreadRequest,
} from './sqlite-thread-body.js';

export interface SqliteThreadResult {
  readonly rows: unknown[];
  readonly changes?: number;
  readonly lastInsertRowid?: number | bigint;
}

/** A connection of its own to an SQLite file, in a worker thread: its statements never run on this one. */
export interface SqliteThread {
  execute(sql: string, parameters: readonly unknown[]): Promise<SqliteThreadResult>;
  /** Closes the connection and ends the thread; statements still waiting fail. */
  close(): Promise<void>;
}

export interface SqliteThreadOptions {
  readonly file: string;
  readonly readonly: boolean;
  readonly busyTimeoutMs: number;
  /** The thread's nice value on Linux (0 keeps the process's priority). */
  readonly niceness?: number;
}

/** How long a closing thread gets to close its connection before it is terminated. */
const CLOSE_GRACE_MS = 5000;

const driverPath = (): string => createRequire(import.meta.url).resolve('better-sqlite3');

const threadError = (message: string, code: unknown): Error =>
  Object.assign(new Error(message), typeof code === 'string' ? { code } : {});

/**
 * Starts the thread on first use, and again on the next statement if it died (its statements in
 * flight fail with its error). While nothing waits for it, it does not keep the process alive.
 */
export const createSqliteThread = (options: SqliteThreadOptions): SqliteThread => {
  const data: SqliteThreadData = {
    file: options.file,
    readonly: options.readonly,
    busyTimeoutMs: options.busyTimeoutMs,
    niceness: options.niceness ?? 0,
    driverPath: driverPath(),
  };
  const waiting = new Map<
    number,
    { resolve: (result: SqliteThreadResult) => void; reject: (error: Error) => void }
  >();
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;

  const failAll = (error: Error) => {
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  };

  const start = (): Worker => {
    const started = new Worker(sqliteThreadSource(), { eval: true, workerData: data });
    started.on('message', (reply: SqliteThreadReply) => {
      const pending = waiting.get(reply.id);
      if (!pending) return;
      waiting.delete(reply.id);
      if (waiting.size === 0) started.unref();
      if ('error' in reply) pending.reject(threadError(reply.error.message, reply.error.code));
      else pending.resolve(reply);
    });
    started.on('error', (error) => {
      if (worker === started) worker = undefined;
      failAll(error);
    });
    started.on('exit', (code) => {
      if (worker === started) worker = undefined;
      failAll(new Error(`the SQLite thread exited (code ${code})`));
    });
    started.unref();
    return started;
  };

  return {
    execute: (sql, parameters) => {
      if (closed) return Promise.reject(new Error('the SQLite thread is closed'));
      worker ??= start();
      const id = nextId++;
      const running = worker;
      return new Promise<SqliteThreadResult>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        running.ref();
        const request: SqliteThreadRequest = { id, sql, parameters };
        running.postMessage(request);
      });
    },
    close: async () => {
      closed = true;
      const running = worker;
      worker = undefined;
      if (!running) return;
      failAll(new Error('the SQLite thread is closed'));
      const exited = new Promise<void>((done) => running.once('exit', () => done()));
      running.ref();
      running.postMessage('close');
      const timer = setTimeout(() => void running.terminate(), CLOSE_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
};
