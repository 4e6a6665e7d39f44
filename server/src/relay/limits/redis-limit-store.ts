import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  LIMIT_BUCKET_MS,
  LIMIT_WINDOW_MS,
  bucketOf,
  type LimitCheck,
  type LimitKind,
  type LimitReading,
  type LimitStore,
  type LimitVerdict,
} from './limit-store.js';
import { createLimitBatches, type ScriptRunner } from './redis-limit-batches.js';
import { createLimitLeases, type SubjectLease } from './redis-limit-leases.js';
import { createLimitSettles } from './redis-limit-settles.js';

export type { ScriptRunner } from './redis-limit-batches.js';

const PREFIX = 'sluice:limit:';
const KIND_OF: Readonly<Record<string, LimitKind>> = { rpm: 'rpm', tpm: 'tpm', concurrency: 'concurrency' };

/**
 * A holder of slots not heard from for this long (an instance killed, or cut off from Redis) loses
 * them. A live holder is heard from every second (redis-limit-leases.ts).
 */
export const STALE_HOLDER_MS = 30_000;

/** What a check asks for beside its own request: requests and slots, and estimates of tokens. */
const LEASE_REQUESTS = 64;
const LEASE_SLOTS = 8;

/** The prefix of a subject's keys, its hash tag in braces. */
const baseOf = (key: string): string => `${PREFIX}{${key}}:`;

/** Every Redis key of a subject's windows (the script's `rb`, `tb`, `cs` and `cz`). */
export const limitKeysOf = (subject: string): string[] =>
  ['rb', 'tb', 'cs', 'cz'].map((part) => `${baseOf(subject)}${part}`);

const numberAt = (values: readonly unknown[], index: number): number => Number(values[index] ?? 0);

/** A check's answer: the verdict, and per subject the lease granted (requests, tokens, slots). */
const answerOf = (answer: unknown, subjects: number): { verdict: LimitVerdict; granted: number[][] } => {
  if (!Array.isArray(answer))
    throw new Error(`the limit script failed: ${typeof answer === 'string' ? answer : 'no answer'}`);
  const values = answer as readonly unknown[];
  const kind = typeof values[0] === 'string' ? values[0] : '';
  const readings: LimitReading[] = [];
  const granted: number[][] = [];
  for (let index = 0; index < subjects; index += 1) {
    const at = 2 + index * 8;
    readings.push({
      requests: numberAt(values, at),
      requestsResetMs: numberAt(values, at + 1),
      tokens: numberAt(values, at + 2),
      tokensResetMs: numberAt(values, at + 3),
      inFlight: numberAt(values, at + 4),
    });
    granted.push([numberAt(values, at + 5), numberAt(values, at + 6), numberAt(values, at + 7)]);
  }
  return { verdict: { refusedBy: KIND_OF[kind], retryAfterMs: numberAt(values, 1), readings }, granted };
};

/**
 * The windows shared by every instance on one Redis (redis-limit-scripts.ts), in batches
 * (redis-limit-batches.ts). Where a limit is far away, a check takes a lease beside its request:
 * requests and tokens of the current second and slots, which this instance then admits from
 * memory (redis-limit-leases.ts), so that a busy key asks Redis once in many requests. A lease is
 * granted from a sixteenth of the room left at most, so near a limit every request asks Redis and
 * the verdicts are exact across instances; a lease's rest goes back when its second is over and
 * idle slots within a second.
 */
export const createRedisLimitStore = (run: ScriptRunner): LimitStore => {
  const batches = createLimitBatches(run);
  const holder = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const leases = createLimitLeases({ batches, holder, baseOf, staleMs: STALE_HOLDER_MS });
  const settles = createLimitSettles(batches);

  const remote = async (
    checks: readonly LimitCheck[],
    subjects: readonly SubjectLease[],
    estimate: number,
    now: number,
  ): Promise<LimitVerdict> => {
    const bucket = bucketOf(now);
    const args: (string | number)[] = [
      now,
      LIMIT_WINDOW_MS,
      LIMIT_BUCKET_MS,
      STALE_HOLDER_MS,
      holder,
      estimate,
    ];
    for (const check of checks)
      args.push(
        check.rpm,
        check.tpm,
        check.concurrency,
        check.rpm > 0 ? LEASE_REQUESTS : 0,
        check.tpm > 0 ? LEASE_REQUESTS * estimate : 0,
        check.concurrency > 0 ? LEASE_SLOTS : 0,
      );
    subjects.forEach((subject) => (subject.pending += 1));
    // This instance's settlements first: the check sees them.
    settles.flush();
    let answer: unknown;
    try {
      answer = await batches.send(
        'a',
        checks.map((check) => baseOf(check.key)),
        args,
      );
    } finally {
      subjects.forEach((subject) => (subject.pending -= 1));
    }
    const { verdict, granted } = answerOf(answer, checks.length);
    if (verdict.refusedBy === undefined)
      checks.forEach((check, index) => {
        const subject = subjects[index];
        const [requests = 0, tokens = 0, slots = 0] = granted[index] ?? [];
        if (subject)
          leases.granted(subject, check, bucket, now, verdict.readings[index], {
            requests,
            tokens,
            slots,
            estimate,
          });
      });
    return verdict;
  };

  return {
    acquire: (checks, _id, estimate, now) => {
      const subjects = checks.map((check) => leases.of(check.key, now));
      const local = leases.admit(checks, subjects, estimate, now);
      return local ? Promise.resolve(local) : remote(checks, subjects, estimate, now);
    },
    finish: async (checks, _id, tokens, release, now, admitted) => {
      const sent = release ? leases.released(checks, now) : [];
      const settled = tokens === undefined ? [] : checks.filter((check) => check.tpm > 0);
      if (tokens !== undefined && settled.length > 0)
        if (tokens !== admitted.estimate || bucketOf(admitted.at) !== bucketOf(now))
          sent.push(
            settles.settle(
              settled.map((check) => baseOf(check.key)),
              tokens,
              admitted.at,
              admitted.estimate,
              now,
            ),
          );
      await Promise.all(sent);
    },
  };
};
