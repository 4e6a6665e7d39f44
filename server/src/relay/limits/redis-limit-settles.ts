import { LIMIT_BUCKET_MS, LIMIT_WINDOW_MS, bucketOf } from './limit-store.js';
import type { LimitBatches } from './redis-limit-batches.js';

/**
 * How long a settlement may wait for others to go with, or for a check: other instances see a
 * request's real tokens (in place of its estimate) at most this late.
 */
export const SETTLE_DELAY_MS = 50;

interface Group {
  readonly subjects: readonly string[];
  readonly started: number;
  now: number;
  tokens: number;
  estimate: number;
  readonly waiters: { resolve: () => void; reject: (error: Error) => void }[];
}

export interface LimitSettles {
  /**
   * Queues a request's settlement on its subjects (their keys' prefixes): its estimate out of the
   * second it was counted in (`at`), its tokens into the second of `now`. Answers once Redis has it.
   */
  settle(
    subjects: readonly string[],
    tokens: number,
    at: number,
    estimate: number,
    now: number,
  ): Promise<void>;
  /** Sends what is queued now (before a check, so that the check sees it). */
  flush(): void;
}

/**
 * Settlements summed before they go to Redis: those of the same subjects, counted in the same
 * second and settled in the same second, go as one (the script adds their tokens and takes out
 * their estimates: the same sums as one at a time). They go with the next check, or SETTLE_DELAY_MS
 * after the first of them.
 */
export const createLimitSettles = (batches: LimitBatches): LimitSettles => {
  let groups = new Map<string, Group>();
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (groups.size === 0) return;
    const sent = groups;
    groups = new Map();
    for (const group of sent.values())
      batches
        .send('s', group.subjects, [
          group.now,
          LIMIT_WINDOW_MS,
          LIMIT_BUCKET_MS,
          group.tokens,
          group.started,
          group.estimate,
        ])
        .then(
          () => group.waiters.forEach((waiter) => waiter.resolve()),
          (error: unknown) => {
            const failure = error instanceof Error ? error : new Error(String(error));
            group.waiters.forEach((waiter) => waiter.reject(failure));
          },
        );
  };

  return {
    flush,
    settle: (subjects, tokens, at, estimate, now) =>
      new Promise<void>((resolve, reject) => {
        const started = bucketOf(at);
        const name = `${started}|${bucketOf(now)}|${subjects.join('|')}`;
        let group = groups.get(name);
        if (!group) {
          group = { subjects, started: started * LIMIT_BUCKET_MS, now, tokens: 0, estimate: 0, waiters: [] };
          groups.set(name, group);
        }
        group.now = now;
        group.tokens += tokens;
        group.estimate += estimate;
        group.waiters.push({ resolve, reject });
        if (timer === undefined) {
          timer = setTimeout(flush, SETTLE_DELAY_MS);
          timer.unref();
        }
      }),
  };
};
