import {
  LIMIT_BUCKET_MS,
  LIMIT_WINDOW_MS,
  bucketOf,
  type LimitCheck,
  type LimitReading,
  type LimitVerdict,
} from './limit-store.js';
import type { LimitBatches } from './redis-limit-batches.js';

/**
 * Whether the last check saw the subject's slots near their limit (no lease granted from a room of
 * 16 or less): then an idle slot goes back at once; far from it, within a second (`sync`).
 */
const nearLimit = (subject: SubjectLease, concurrency: number): boolean =>
  (subject.reading?.inFlight ?? 0) + 1 + 16 > concurrency;

/** How often the leases are tidied: rests of past seconds and idle slots given back, holders heard. */
const SYNC_MS = 1000;

/** What this instance holds of one subject's limits in Redis, and what it admitted from it. */
export interface SubjectLease {
  readonly key: string;
  /** The second of the requests and tokens lease, and what is left of them to admit here. */
  bucket: number;
  requests: number;
  tokens: number;
  /** Slots held in Redis, and requests admitted here and not ended (at most `held`). */
  held: number;
  inFlight: number;
  /** Checks sent to Redis and not answered. */
  pending: number;
  /** Redis's last reading, and what was counted here since (for the answers' headers). */
  reading: LimitReading | undefined;
  readAt: number;
  sinceRequests: number;
  sinceTokens: number;
  touched: number;
}

/** A lease granted with a request counted in Redis. */
export interface Granted {
  readonly requests: number;
  readonly tokens: number;
  readonly slots: number;
  readonly estimate: number;
}

export interface LimitLeases {
  /** The subject's lease, its rest of a past second given back. */
  of(key: string, now: number): SubjectLease;
  /** Admits a request from the leases of all its subjects, or answers undefined (ask Redis). */
  admit(
    checks: readonly LimitCheck[],
    subjects: readonly SubjectLease[],
    estimate: number,
    now: number,
  ): LimitVerdict | undefined;
  /** Records a request Redis admitted (sent in `bucket`), with the lease granted beside it. */
  granted(
    subject: SubjectLease,
    check: LimitCheck,
    bucket: number,
    now: number,
    reading: LimitReading | undefined,
    lease: Granted,
  ): void;
  /**
   * A request's end: its slot is free here; near the limit it goes back to Redis at once (answered
   * when it is back), far from it with the idle others within a second.
   */
  released(checks: readonly LimitCheck[], now: number): Promise<unknown>[];
}

export interface LimitLeasesDeps {
  readonly batches: LimitBatches;
  readonly holder: string;
  readonly baseOf: (key: string) => string;
  readonly staleMs: number;
}

const ignore = () => undefined;

export const createLimitLeases = (deps: LimitLeasesDeps): LimitLeases => {
  const { batches, holder, baseOf, staleMs } = deps;
  const subjects = new Map<string, SubjectLease>();

  const giveBack = (key: string, bucket: number, requests: number, tokens: number, now: number) => {
    if (requests <= 0 && tokens <= 0) return;
    // Lost when Redis is away: the rest then counts until its second leaves the window.
    batches
      .send('g', [baseOf(key)], [now, LIMIT_WINDOW_MS, LIMIT_BUCKET_MS, bucket, requests, tokens])
      .catch(ignore);
  };

  const hold = (subject: SubjectLease, freed: number, now: number): Promise<unknown> => {
    const exact = subject.pending === 0 ? 1 : 0;
    return batches.send('h', [baseOf(subject.key)], [now, staleMs, holder, exact, freed, subject.held]);
  };

  const roll = (subject: SubjectLease, now: number) => {
    const bucket = bucketOf(now);
    if (subject.bucket === bucket) return;
    giveBack(subject.key, subject.bucket, subject.requests, subject.tokens, now);
    subject.bucket = bucket;
    subject.requests = 0;
    subject.tokens = 0;
  };

  // The callers' clock (Date.now(), or a test's), read on: the last time they gave, and how long ago.
  let seen = { at: Date.now(), real: performance.now() };
  const sync = () => {
    const now = seen.at + Math.round(performance.now() - seen.real);
    for (const subject of subjects.values()) {
      // Only on: a lease of a later second (a caller's clock ahead of the read-on one) stays.
      if (bucketOf(now) > subject.bucket) roll(subject, now);
      if (subject.held > 0 || subject.pending === 0) {
        // Idle slots go back; the holder is heard from (and, when exact, set as it is).
        const freed = subject.held - subject.inFlight;
        subject.held = subject.inFlight;
        // Lost when Redis is away: the next second's, exact, puts it right.
        if (subject.held > 0 || freed > 0) hold(subject, freed, now).catch(ignore);
      }
      if (subject.held === 0 && subject.pending === 0 && now - subject.touched > LIMIT_WINDOW_MS)
        subjects.delete(subject.key);
    }
  };
  setInterval(sync, SYNC_MS).unref();

  return {
    of: (key, now) => {
      seen = { at: now, real: performance.now() };
      let subject = subjects.get(key);
      if (!subject) {
        subject = {
          key,
          bucket: bucketOf(now),
          requests: 0,
          tokens: 0,
          held: 0,
          inFlight: 0,
          pending: 0,
          reading: undefined,
          readAt: now,
          sinceRequests: 0,
          sinceTokens: 0,
          touched: now,
        };
        subjects.set(key, subject);
      }
      subject.touched = now;
      roll(subject, now);
      return subject;
    },
    admit: (checks, leased, estimate, now) => {
      for (let index = 0; index < checks.length; index += 1) {
        const check = checks[index];
        const subject = leased[index];
        if (!check || !subject?.reading) return undefined;
        if (check.rpm > 0 && subject.requests < 1) return undefined;
        if (check.tpm > 0 && subject.tokens < Math.max(1, estimate)) return undefined;
        if (check.concurrency > 0 && subject.inFlight >= subject.held) return undefined;
      }
      const readings: LimitReading[] = [];
      for (let index = 0; index < checks.length; index += 1) {
        const check = checks[index] as LimitCheck;
        const subject = leased[index] as SubjectLease;
        const reading = subject.reading as LimitReading;
        if (check.rpm > 0) subject.requests -= 1;
        if (check.tpm > 0) subject.tokens -= estimate;
        if (check.concurrency > 0) subject.inFlight += 1;
        const elapsed = now - subject.readAt;
        readings.push({
          requests: reading.requests + subject.sinceRequests,
          requestsResetMs: Math.max(0, reading.requestsResetMs - elapsed),
          tokens: reading.tokens + subject.sinceTokens,
          tokensResetMs: Math.max(0, reading.tokensResetMs - elapsed),
          inFlight: reading.inFlight,
        });
        subject.sinceRequests += 1;
        subject.sinceTokens += estimate;
      }
      return { refusedBy: undefined, retryAfterMs: 0, readings };
    },
    granted: (subject, check, bucket, now, reading, lease) => {
      if (check.concurrency > 0) {
        subject.held += 1 + lease.slots;
        subject.inFlight += 1;
      }
      if (bucket === subject.bucket) {
        subject.requests += lease.requests;
        subject.tokens += lease.tokens;
      } else giveBack(subject.key, bucket, lease.requests, lease.tokens, now);
      subject.reading = reading;
      subject.readAt = now;
      subject.sinceRequests = 1;
      subject.sinceTokens = lease.estimate;
    },
    released: (checks, now) => {
      const holds: Promise<unknown>[] = [];
      for (const check of checks) {
        if (check.concurrency === 0) continue;
        const subject = subjects.get(check.key);
        if (!subject || subject.inFlight === 0) continue;
        subject.inFlight -= 1;
        if (!nearLimit(subject, check.concurrency)) continue;
        const freed = subject.held - subject.inFlight;
        if (freed <= 0) continue;
        subject.held -= freed;
        holds.push(hold(subject, freed, now));
      }
      return holds;
    },
  };
};
