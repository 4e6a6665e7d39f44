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
/** mysql2's own codes for a lost or refused connection. */
const MYSQL_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ECONNRESET',
]);
/** PostgreSQL SQLSTATEs of a connection that failed or a server that is shutting down or starting. */
const PG_STATES = /^(08\d{3}|57P0[1-3])$/;
/** SQLite: the file stayed locked past busy_timeout. */
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']);
/** node-postgres, and mysql2 on a connection that already broke, say so in words only. */
const MESSAGES = [
  'connection is in closed state',
  'Connection terminated',
  'connection error',
  'not queryable',
  'timeout exceeded when trying to connect',
];

/**
 * Whether an error says the database cannot be reached right now (down, restarting, unreachable,
 * locked), rather than that a statement is wrong: the request may succeed when retried, so it is a
 * 503, not a 500. Every driver's way of saying it is read here and nowhere else.
 */
export const isDatabaseUnavailable = (error: unknown): boolean => {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (SOCKET_CODES.has(code) || MYSQL_CODES.has(code) || SQLITE_CODES.has(code) || PG_STATES.test(code))
        return true;
    }
    if (MESSAGES.some((text) => cause instanceof Error && cause.message.includes(text))) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
};

/** What a client hears while the database is away, in its surface's shape (503). */
export const databaseUnavailable = (): AppError =>
  new AppError('database_unavailable', 'the database is unavailable; retry shortly', 503, 'sluice_error');
