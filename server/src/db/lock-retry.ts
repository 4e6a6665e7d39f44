import { isLockConflict } from './database-unavailable.js';

/** How many times a transaction is run in all when it keeps meeting lock conflicts. */
export const LOCK_TRIES = 4;

const pause = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, attempt * (2 + Math.random() * 8)));

/**
 * Runs `transaction` (a whole transaction: nothing of it committed when it throws) again when the
 * database rolled it back for a lock conflict (a deadlock with another instance's transaction, say),
 * after a short random pause, up to LOCK_TRIES in all; any other error, or the last conflict, is
 * thrown.
 */
export const withLockRetries = async <T>(transaction: () => Promise<T>): Promise<T> => {
  for (let attempt = 1; ; attempt += 1)
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= LOCK_TRIES || !isLockConflict(error)) throw error;
      await pause(attempt);
    }
};
