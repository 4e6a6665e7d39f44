/**
 * What a limit store keeps: for every subject (a key, a user, a group) a sliding window of the last
 * minute's requests, a sliding window of the last minute's tokens, and the requests in flight.
 * In memory on one instance (memory-limit-store.ts), in Redis for several (redis-limit-store.ts):
 * both answer the same verdicts, the Redis one in one atomic script per check.
 *
 * The windows are sliding windows of one-second buckets: a request counts in the bucket of the
 * second it came in, and a bucket counts until the whole second has left the minute. So a limit of
 * N a minute never admits more than N in any 60 s (a request counts at least a minute, at most a
 * minute and a second), and a window costs the same at any traffic: at most 61 numbers and their
 * sum, where a log of every request held 180,000 entries for a key at 3,000 requests a second and
 * its Redis script cost more than the request. Not GCRA: GCRA admits a burst of N and then N more
 * spread over the next minute (2N in 60 s), and keeps one number, from which a request's estimated
 * tokens cannot be taken back when its real usage comes.
 */

/** The window of RPM and TPM: a minute, sliding. */
export const LIMIT_WINDOW_MS = 60_000;

/** The windows' buckets: a second. */
export const LIMIT_BUCKET_MS = 1000;

/** The bucket of a time. */
export const bucketOf = (at: number): number => Math.floor(at / LIMIT_BUCKET_MS);

/** The oldest bucket still in the window at `now` (its second ends after `now` − the window). */
export const firstBucketAt = (now: number): number => bucketOf(now - LIMIT_WINDOW_MS);

/** How long, from `now`, until a bucket leaves the window. */
export const bucketLeavesIn = (bucket: number, now: number): number =>
  (bucket + 1) * LIMIT_BUCKET_MS + LIMIT_WINDOW_MS - now;

/**
 * A request in flight longer than this is taken for one whose release was lost (an instance that
 * died, Redis away when it ended): its slot is freed.
 */
export const STALE_IN_FLIGHT_MS = 30 * 60_000;

/** One subject's limits for one request; 0 is unset. */
export interface LimitCheck {
  /** The subject, e.g. `t:12` (key 12), `u:3` (user 3), `g:vip` (group vip). */
  readonly key: string;
  readonly rpm: number;
  readonly tpm: number;
  readonly concurrency: number;
}

/** How one subject's windows stood when the request was checked (before it was counted). */
export interface LimitReading {
  /** Requests in the last minute, and when the oldest of them leave the window (ms from now). */
  readonly requests: number;
  readonly requestsResetMs: number;
  /** Tokens in the last minute, and when the oldest of them leave the window (ms from now). */
  readonly tokens: number;
  readonly tokensResetMs: number;
  /** Requests in flight. */
  readonly inFlight: number;
}

export type LimitKind = 'rpm' | 'tpm' | 'concurrency';

export interface LimitVerdict {
  /** The first limit that refused the request, or undefined when it was admitted and counted. */
  readonly refusedBy: LimitKind | undefined;
  /** When a refused request could pass, in ms from now (0 when admitted). */
  readonly retryAfterMs: number;
  /** One reading per check, in the checks' order. */
  readonly readings: readonly LimitReading[];
}

export interface LimitStore {
  /**
   * Checks every subject's limits and, when all hold, counts the request in each at once (a
   * request refused by one subject is counted by none): `estimate` tokens on account in TPM.
   */
  acquire(checks: readonly LimitCheck[], id: string, estimate: number, now: number): Promise<LimitVerdict>;
  /**
   * Ends a request's part: `tokens` (when given) replaces its estimate in TPM, counted now (0 takes
   * it out); `release` frees its slot in flight. `admitted` is when it was counted and its estimate.
   */
  finish(
    checks: readonly LimitCheck[],
    id: string,
    tokens: number | undefined,
    release: boolean,
    now: number,
    admitted: LimitAdmission,
  ): Promise<void>;
}

/** When a request was counted, and the tokens it was counted with. */
export interface LimitAdmission {
  readonly at: number;
  readonly estimate: number;
}
