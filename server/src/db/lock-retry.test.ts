import { describe, expect, it } from 'vitest';
import { LOCK_TRIES, withLockRetries } from './lock-retry.js';

const failure = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe('withLockRetries', () => {
  it('runs a transaction rolled back for a lock conflict again, and answers what it answers', async () => {
    for (const code of ['ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT', '40P01', '40001', '55P03']) {
      let runs = 0;
      const answer = await withLockRetries(() => {
        runs += 1;
        return runs < 3 ? Promise.reject(failure(code)) : Promise.resolve('done');
      });
      expect(answer).toBe('done');
      expect(runs).toBe(3);
    }
  });

  it('finds the conflict behind a wrapping error', async () => {
    let runs = 0;
    await withLockRetries(() => {
      runs += 1;
      return runs === 1
        ? Promise.reject(new Error('wrapped', { cause: failure('ER_LOCK_DEADLOCK') }))
        : Promise.resolve();
    });
    expect(runs).toBe(2);
  });

  it('throws any other error at once, and the last conflict after LOCK_TRIES runs', async () => {
    let runs = 0;
    await expect(
      withLockRetries(() => {
        runs += 1;
        return Promise.reject(failure('ER_DUP_ENTRY'));
      }),
    ).rejects.toThrow('ER_DUP_ENTRY');
    expect(runs).toBe(1);
    runs = 0;
    await expect(
      withLockRetries(() => {
        runs += 1;
        return Promise.reject(failure('40P01'));
      }),
    ).rejects.toThrow('40P01');
    expect(runs).toBe(LOCK_TRIES);
  });
});
