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
  /** Whether the thread is started now (not yet, or ended for being idle: false). */
  started(): boolean;
}

export interface SqliteThreadOptions {
  readonly file: string;
  readonly readonly: boolean;
  readonly busyTimeoutMs: number;
  /** The thread's nice value on Linux (0 keeps the process's priority). */
  readonly niceness?: number;
  /**
   * Ends the thread (its connection closed) once nothing has been asked of it for this long; the
   * next statement starts it again. Absent: it stays until `close`.
   */
  readonly idleMs?: number;
  /** SQLite's wal_autocheckpoint for the thread's connection; absent, SQLite's default (1000 pages). */
  readonly autocheckpointPages?: number;
}

/** How long a closing thread gets to close its connection before it is terminated. */
const CLOSE_GRACE_MS = 5000;

const driverPath = (): string => createRequire(import.meta.url).resolve('better-sqlite3');

const threadError = (message: string, code: unknown): Error =>
  Object.assign(new Error(message), typeof code === 'string' ? { code } : {});

type Pending = { resolve: (result: SqliteThreadResult) => void; reject: (error: Error) => void };

/** A started thread and the statements it owes answers to. */
interface Running {
  readonly worker: Worker;
  readonly waiting: Map<number, Pending>;
  idle?: NodeJS.Timeout;
}

/**
 * Starts the thread on first use, and again on the next statement if it died (its statements in
 * flight fail with its error) or was ended for being idle. While nothing waits for it, it does not
 * keep the process alive.
 */
export const createSqliteThread = (options: SqliteThreadOptions): SqliteThread => {
  const data: SqliteThreadData = {
    file: options.file,
    readonly: options.readonly,
    busyTimeoutMs: options.busyTimeoutMs,
    niceness: options.niceness ?? 0,
    driverPath: driverPath(),
    autocheckpointPages: options.autocheckpointPages,
  };
  let current: Running | undefined;
  /** A thread ended for being idle, until it has exited (`close` waits for it too). */
  let retiring: Promise<void> | undefined;
  let nextId = 1;
  let closed = false;

  const failAll = (running: Running, error: Error) => {
    for (const pending of running.waiting.values()) pending.reject(error);
    running.waiting.clear();
  };

  /** Asks the thread to close its connection and exit; terminated if it has not within the grace. */
  const end = async (running: Running): Promise<void> => {
    clearTimeout(running.idle);
    const exited = new Promise<void>((done) => running.worker.once('exit', () => done()));
    running.worker.ref();
    running.worker.postMessage('close');
    const timer = setTimeout(() => void running.worker.terminate(), CLOSE_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };

  const retireWhenIdle = (running: Running) => {
    const { idleMs } = options;
    if (idleMs === undefined) return;
    clearTimeout(running.idle);
    running.idle = setTimeout(() => {
      if (current !== running || running.waiting.size > 0) return;
      current = undefined;
      const ended = end(running).finally(() => {
        if (retiring === ended) retiring = undefined;
      });
      retiring = ended;
    }, idleMs);
    running.idle.unref();
  };

  const start = (): Running => {
    const running: Running = {
      worker: new Worker(sqliteThreadSource(), { eval: true, workerData: data }),
      waiting: new Map(),
    };
    const { worker, waiting } = running;
    worker.on('message', (reply: SqliteThreadReply) => {
      const pending = waiting.get(reply.id);
      if (!pending) return;
      waiting.delete(reply.id);
      if (waiting.size === 0) {
        worker.unref();
        retireWhenIdle(running);
      }
      if ('error' in reply) pending.reject(threadError(reply.error.message, reply.error.code));
      else pending.resolve(reply);
    });
    worker.on('error', (error) => {
      if (current === running) current = undefined;
      failAll(running, error);
    });
    worker.on('exit', (code) => {
      if (current === running) current = undefined;
      clearTimeout(running.idle);
      failAll(running, new Error(`the SQLite thread exited (code ${code})`));
    });
    worker.unref();
    return running;
  };

  return {
    execute: (sql, parameters) => {
      if (closed) return Promise.reject(new Error('the SQLite thread is closed'));
      const running = (current ??= start());
      clearTimeout(running.idle);
      const id = nextId++;
      return new Promise<SqliteThreadResult>((resolve, reject) => {
        running.waiting.set(id, { resolve, reject });
        running.worker.ref();
        const request: SqliteThreadRequest = { id, sql, parameters };
        running.worker.postMessage(request);
      });
    },
    started: () => current !== undefined,
    close: async () => {
      closed = true;
      const running = current;
      current = undefined;
      if (running) {
        failAll(running, new Error('the SQLite thread is closed'));
        await end(running);
      }
      await retiring;
    },
  };
};
