import { describe, expect, it } from 'vitest';
import { AppError } from '../lib/app-error.js';
import { isDatabaseUnavailable } from './database-unavailable.js';

const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', coded('ECONNREFUSED')],
    ['a reset connection', coded('ECONNRESET')],
    ['mysql2: the connection lost', coded('PROTOCOL_CONNECTION_LOST')],
    ['mysql2: a deadlock', coded('ER_LOCK_DEADLOCK')],
    ['mysql2: a lock wait timed out', coded('ER_LOCK_WAIT_TIMEOUT')],
    ['PostgreSQL: admin shutdown', coded('57P01')],
    ['PostgreSQL: connection failure', coded('08006')],
    ['PostgreSQL: too many clients', coded('53300')],
    ['PostgreSQL: a deadlock', coded('40P01')],
    ['PostgreSQL: a serialization failure', coded('40001')],
    ['SQLite: busy past busy_timeout', coded('SQLITE_BUSY')],
    ['node-postgres: terminated', new Error('Connection terminated unexpectedly')],
    ['mysql2: a closed connection', new Error("Can't add new command when connection is in closed state")],
    [
      'a cause two levels down',
      new Error('outer', { cause: new Error('mid', { cause: coded('ECONNRESET') }) }),
    ],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a syntax error', coded('42601')],
    ['a unique violation', coded('23505')],
    ['mysql2: out of range', coded('ER_WARN_DATA_OUT_OF_RANGE')],
    ['SQLite: locked within one connection (a defect)', coded('SQLITE_LOCKED')],
    ['a message that only mentions a connection', new Error('upstream connection error: not queryable')],
    ['an AppError', new AppError('business', 'Connection terminated')],
    ['not an error', 'ECONNRESET'],
  ])('is false for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
