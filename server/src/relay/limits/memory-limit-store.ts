import { BucketWindow } from './bucket-window.js';
import {
  LIMIT_WINDOW_MS,
  STALE_IN_FLIGHT_MS,
  bucketLeavesIn,
  bucketOf,
  firstBucketAt,
  type LimitKind,
  type LimitReading,
  type LimitStore,
} from './limit-store.js';

interface Windows {
  readonly requests: BucketWindow;
  readonly tokens: BucketWindow;
  /** Requests in flight, by id, with their start: a Map keeps them in the order they started. */
  readonly inFlight: Map<string, number>;
  touched: number;
}

const SWEEP_EVERY = 1000;

/** Frees the slots of requests in flight for longer than STALE_IN_FLIGHT_MS (oldest first). */
const dropStale = (inFlight: Map<string, number>, now: number) => {
  for (const [id, started] of inFlight) {
    if (started > now - STALE_IN_FLIGHT_MS) break;
    inFlight.delete(id);
  }
};

/**
 * How long until the tokens left in the window are at most `room` (or none): a refused TPM's wait.
 */
const tokensWait = (window: BucketWindow, first: number, now: number, room: number): number => {
  let left = window.total();
  let wait = 0;
  for (const [bucket, amount] of window.buckets(first)) {
    left -= amount;
    wait = bucketLeavesIn(bucket, now);
    if (left <= Math.max(0, room)) break;
  }
  return wait;
};

/** The windows of one instance without Redis: the same verdicts as the Redis script, in a Map. */
export const createMemoryLimitStore = (): LimitStore => {
  const subjects = new Map<string, Windows>();
  let calls = 0;

  const windowsOf = (key: string, now: number): Windows => {
    let windows = subjects.get(key);
    if (!windows) {
      windows = {
        requests: new BucketWindow(),
        tokens: new BucketWindow(),
        inFlight: new Map(),
        touched: now,
      };
      subjects.set(key, windows);
    }
    windows.touched = now;
    const first = firstBucketAt(now);
    windows.requests.roll(first);
    windows.tokens.roll(first);
    dropStale(windows.inFlight, now);
    return windows;
  };

  const sweep = (now: number) => {
    for (const [key, windows] of subjects)
      if (windows.inFlight.size === 0 && now - windows.touched > LIMIT_WINDOW_MS) subjects.delete(key);
  };

  return {
    acquire: (checks, id, estimate, now) => {
      calls += 1;
      if (calls % SWEEP_EVERY === 0) sweep(now);
      let refusedBy: LimitKind | undefined;
      let retryAfterMs = 0;
      const refuse = (kind: LimitKind, wait: number) => {
        refusedBy ??= kind;
        retryAfterMs = Math.max(retryAfterMs, wait);
      };
      const first = firstBucketAt(now);
      const readings: LimitReading[] = [];
      const counted: Windows[] = [];
      for (const check of checks) {
        const windows = windowsOf(check.key, now);
        counted.push(windows);
        const requests = windows.requests.total();
        const oldest = windows.requests.oldestBucket();
        const requestsResetMs = oldest === undefined ? 0 : bucketLeavesIn(oldest, now);
        const tokens = windows.tokens.total();
        const oldestTokens = windows.tokens.oldestBucket();
        const tokensResetMs = oldestTokens === undefined ? 0 : bucketLeavesIn(oldestTokens, now);
        if (check.rpm > 0 && requests >= check.rpm) refuse('rpm', requestsResetMs);
        // Until enough of the oldest tokens have left the window for this request's estimate.
        if (check.tpm > 0 && tokens > 0 && tokens + estimate > check.tpm)
          refuse('tpm', tokensWait(windows.tokens, first, now, check.tpm - estimate));
        if (check.concurrency > 0 && windows.inFlight.size >= check.concurrency) refuse('concurrency', 1000);
        readings.push({ requests, requestsResetMs, tokens, tokensResetMs, inFlight: windows.inFlight.size });
      }
      if (refusedBy === undefined) {
        const bucket = bucketOf(now);
        for (let index = 0; index < checks.length; index += 1) {
          const check = checks[index];
          const windows = counted[index];
          if (!check || !windows) continue;
          if (check.rpm > 0) windows.requests.change(bucket, 1);
          if (check.tpm > 0) windows.tokens.change(bucket, estimate);
          if (check.concurrency > 0) windows.inFlight.set(id, now);
        }
      }
      return Promise.resolve({ refusedBy, retryAfterMs, readings });
    },
    finish: (checks, id, tokens, release, now, admitted) => {
      const first = firstBucketAt(now);
      const started = bucketOf(admitted.at);
      for (const check of checks) {
        const windows = subjects.get(check.key);
        if (!windows) continue;
        if (tokens !== undefined && check.tpm > 0) {
          // The estimate leaves its second (unless that second has left the window already).
          if (started >= first) windows.tokens.change(started, -admitted.estimate);
          windows.tokens.change(bucketOf(now), tokens);
        }
        if (release) windows.inFlight.delete(id);
      }
      return Promise.resolve();
    },
  };
};
