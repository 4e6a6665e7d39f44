import { Kysely, sql, type KyselyConfig } from 'kysely';
import { createSqliteThread } from './sqlite-thread.js';
import { sqliteThreadDialect, type SqliteGate } from './sqlite-thread-dialect.js';
import type { Tables } from './tables.js';

/**
 * The read thread's nice value: the console's reads yield the CPU to the relay's thread when both
 * want it (on 2 cores, a busy read thread otherwise stretches the relay's tail latency). The
 * maintenance thread keeps the process's priority: while it runs a statement it holds the main
 * connection, which a starved thread would hold for longer.
 */
const READ_NICENESS = 10;

/** How often the maintenance thread checkpoints the WAL (and after each of its own writes). */
const CHECKPOINT_EVERY_MS = 1000;

/**
 * The main connection checkpoints only past this many WAL pages (SQLite's default is 1000): a
 * fallback, should the maintenance thread be unable to, that keeps the WAL bounded.
 */
const MAIN_AUTOCHECKPOINT_PAGES = 10_000;

const CHECKPOINT = 'PRAGMA wal_checkpoint(PASSIVE)';

/**
 * The read thread ends after this long without a console read (a V8 isolate and a connection: about
 * 10 MiB), and starts again with the next one (some tens of milliseconds).
 */
export const READ_IDLE_MS = 60_000;

/** The databases an SQLite instance runs off the relay's thread. */
export interface SqliteThreadDatabases {
  /** A read-only connection in a thread of its own: the console's long reads. */
  readonly readDb: Kysely<Tables>;
  /** A read-write connection in another thread, each statement in the main connection's turn. */
  readonly maintenanceDb: Kysely<Tables>;
  close(): Promise<void>;
}

/**
 * better-sqlite3 runs every statement on the calling thread, so on the relay's thread a console
 * aggregate over millions of log rows, or one DELETE of them, stops every request for its whole
 * length. These connections (WAL mode lets them read while the main one writes) run in worker
 * threads instead: the main thread only posts the statement and awaits the answer.
 *
 * The read thread never takes the write lock. The maintenance thread does, so its statements are
 * gated by `main`: each runs while it holds the main connection (Kysely's single-connection mutex),
 * and the main thread's own queries wait for their turn asynchronously instead of sleeping in
 * SQLite's busy handler on the event loop. Its statements must therefore be short (batches).
 *
 * Checkpoints move too. SQLite copies the WAL back into the database in the connection whose commit
 * passes 1000 WAL pages, fsync included: on the main connection that stalled the relay's thread for
 * 10-30 ms, often while a cleanup's batches or a reader holding an old snapshot kept the WAL long.
 * The maintenance thread checkpoints (PASSIVE: never waiting for the write lock, never holding the
 * main connection) every second and after each of its writes, never inside its own commits; the
 * main connection only past MAIN_AUTOCHECKPOINT_PAGES, as a fallback.
 */
export const openSqliteThreads = async (
  main: Kysely<Tables>,
  file: string,
  busyTimeoutMs: number,
  log: KyselyConfig['log'],
  readIdleMs = READ_IDLE_MS,
): Promise<SqliteThreadDatabases> => {
  const gate: SqliteGate = (work) => main.connection().execute(() => work());
  const readThread = createSqliteThread({
    file,
    readonly: true,
    busyTimeoutMs,
    niceness: READ_NICENESS,
    idleMs: readIdleMs,
  });
  // Its own commits never checkpoint: SQLite does that inside COMMIT, here while the main connection
  // is held (a roll-up chunk of a 2M-row backfill: ~300 of its ~390 ms). It checkpoints after them.
  const maintenanceThread = createSqliteThread({
    file,
    readonly: false,
    busyTimeoutMs,
    autocheckpointPages: 0,
  });
  const checkpoint = async () => {
    await maintenanceThread.execute(CHECKPOINT, []).catch(() => undefined);
  };
  const withLog = log ? { log } : {};
  const readDb = new Kysely<Tables>({ dialect: sqliteThreadDialect({ thread: readThread }), ...withLog });
  const maintenanceDb = new Kysely<Tables>({
    dialect: sqliteThreadDialect({ thread: maintenanceThread, gate, afterWrite: checkpoint }),
    ...withLog,
  });
  await sql.raw(`PRAGMA wal_autocheckpoint = ${MAIN_AUTOCHECKPOINT_PAGES}`).execute(main);
  const timer = setInterval(() => void checkpoint(), CHECKPOINT_EVERY_MS);
  timer.unref();
  return {
    readDb,
    maintenanceDb,
    close: async () => {
      clearInterval(timer);
      await Promise.all([readDb.destroy(), maintenanceDb.destroy()]);
      // Kysely destroys only a driver it has used; the checkpoints start the maintenance thread
      // without it, and a thread left open keeps its connection (and the WAL) after the main one.
      await Promise.all([readThread.close(), maintenanceThread.close()]);
    },
  };
};
