import { AppError } from '../lib/app-error.js';

/** Socket-level failures of any driver: the server is not there (or went away mid-query). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
/**
 * mysql2's codes for a lost or refused connection, a server at its connection limit or shutting
 * down, and the brief conflicts a retry resolves (a deadlock, a lock wait that timed out).
 */
const MYSQL_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
]);
/**
 * PostgreSQL SQLSTATEs: a connection that failed (08…), a server shutting down or starting (57P0x),
 * too many connections (53300), and the brief conflicts a retry resolves: a serialization failure
 * (40001), a deadlock (40P01), a lock not available (55P03), a statement cancelled by a timeout (57014).
 */
const PG_STATES = /^(08\d{3}|57P0[1-3]|53300|40001|40P01|55P03|57014)$/;
/** SQLite: the file stayed locked past busy_timeout (SQLITE_LOCKED, a conflict within one connection, is a defect). */
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']);
/** node-postgres, pg-pool and mysql2 (on a connection that already broke) say so in words only. */
const MESSAGES = [
  "Can't add new command when connection is in closed state",
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'timeout exceeded when trying to connect',
];

/** An error and the causes behind it (a driver's error is often wrapped), five deep at most. */
function* causesOf(error: unknown): Generator<Error> {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    yield cause;
    cause = (cause as { cause?: unknown }).cause;
  }
}

const codeOf = (error: Error): string | undefined => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
};

/**
 * Whether an error says the database cannot serve right now (down, restarting, unreachable, at its
 * connection limit, or a brief lock conflict), rather than that a statement is wrong: the same work
 * may succeed when retried, so it is a 503, not a 500, and a settlement waits and tries again. Every driver's way of saying it is read here and nowhere else.
 */
export const isDatabaseUnavailable = (error: unknown): boolean => {
  // Sluice's own errors say what they mean; only a driver's are read here.
  if (error instanceof AppError) return false;
  for (const cause of causesOf(error)) {
    const code = codeOf(cause);
    if (
      code !== undefined &&
      (SOCKET_CODES.has(code) || MYSQL_CODES.has(code) || SQLITE_CODES.has(code) || PG_STATES.test(code))
    )
      return true;
    if (MESSAGES.some((text) => cause.message.startsWith(text))) return true;
  }
  return false;
};

/** MySQL's and PostgreSQL's brief conflicts: a deadlock, a lock wait that timed out, a serialization failure. */
const CONFLICT_CODES = new Set(['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', '40001', '40P01', '55P03']);

/**
 * Whether an error is a brief conflict between transactions, which the database resolved by
 * rolling this one back: the same transaction, tried again at once, most likely succeeds.
 */
export const isLockConflict = (error: unknown): boolean => {
  for (const cause of causesOf(error)) if (CONFLICT_CODES.has(codeOf(cause) ?? '')) return true;
  return false;
};

/** What a client hears while the database is away, in its surface's shape (503). */
export const databaseUnavailable = (): AppError =>
  new AppError('database_unavailable', 'the database is unavailable; retry shortly', 503, 'sluice_error');
