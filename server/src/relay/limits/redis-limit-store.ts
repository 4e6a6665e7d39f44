import {
  LIMIT_BUCKET_MS,
  LIMIT_WINDOW_MS,
  STALE_IN_FLIGHT_MS,
  type LimitKind,
  type LimitReading,
  type LimitStore,
  type LimitVerdict,
} from './limit-store.js';
import { LIMIT_BATCH_SCRIPT } from './redis-limit-scripts.js';

/** Runs a Lua script on the shared Redis (the cache's connection: cache.ts `runScript`). */
export type ScriptRunner = (
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

const PREFIX = 'sluice:limit:';
const KIND_OF: Readonly<Record<string, LimitKind>> = { rpm: 'rpm', tpm: 'tpm', concurrency: 'concurrency' };
/** At most this many checks and ends go in one script call (a larger queue takes several). */
const BATCH_LIMIT = 256;

const numberAt = (values: readonly unknown[], index: number): number => Number(values[index] ?? 0);

/**
 * How long an end may wait for the next check to go with it: the slot it frees and the tokens it
 * settles reach Redis at most this late (on this instance the next check always sees them first).
 */
export const END_DELAY_MS = 5;

/** A check's or an end's subjects (their keys' prefix) and arguments, waiting for the next batch. */
interface Operation {
  readonly kind: 'a' | 'f';
  readonly subjects: readonly string[];
  readonly args: readonly (string | number)[];
  readonly resolve: (answer: unknown) => void;
  readonly reject: (error: Error) => void;
}

const verdictOf = (answer: unknown, subjects: number): LimitVerdict => {
  if (!Array.isArray(answer))
    throw new Error(`the limit script failed: ${typeof answer === 'string' ? answer : 'no answer'}`);
  const values = answer as readonly unknown[];
  const kind = typeof values[0] === 'string' ? values[0] : '';
  const readings: LimitReading[] = [];
  for (let index = 0; index < subjects; index += 1) {
    const at = 2 + index * 5;
    readings.push({
      requests: numberAt(values, at),
      requestsResetMs: numberAt(values, at + 1),
      tokens: numberAt(values, at + 2),
      tokensResetMs: numberAt(values, at + 3),
      inFlight: numberAt(values, at + 4),
    });
  }
  return { refusedBy: KIND_OF[kind], retryAfterMs: numberAt(values, 1), readings };
};

/** The prefix of a subject's keys, its hash tag in braces. */
const baseOf = (key: string): string => `${PREFIX}{${key}}:`;

/** Every Redis key of a subject's windows (the script's `rb`, `tb` and `c`). */
export const limitKeysOf = (subject: string): string[] =>
  ['rb', 'tb', 'c'].map((part) => `${baseOf(subject)}${part}`);

/**
 * The windows shared by every instance on one Redis. Checks and ends go to Redis in batches, one
 * script call each (LIMIT_BATCH_SCRIPT), run in the order they came, each atomic as its own script
 * was. A check goes at the end of its turn of the event loop, with everything queued before it,
 * unless a batch is in flight: then it waits for that batch's answer and goes with everything that
 * came meanwhile (as Nagle's algorithm does), so alone a check costs one round trip and under load
 * one round trip serves many requests. An end waits up to END_DELAY_MS for a check to go with.
 */
export const createRedisLimitStore = (run: ScriptRunner): LimitStore => {
  let queue: Operation[] = [];
  let checkQueued = false;
  let endTimer: NodeJS.Timeout | undefined;
  /** Batches sent and not yet answered; while there is one, the next batch gathers. */
  let sending = 0;
  let flushWanted = false;

  const sent = () => {
    sending -= 1;
    if (sending === 0 && flushWanted) flush();
  };

  const send = (operations: readonly Operation[]) => {
    // Each subject once in KEYS; the operations name theirs by index (Lua's, from 1).
    const subjects: string[] = [];
    const indexes = new Map<string, number>();
    const encoded = operations.map((operation) => [
      operation.kind,
      operation.subjects.map((subject) => {
        let index = indexes.get(subject);
        if (index === undefined) {
          index = subjects.push(subject);
          indexes.set(subject, index);
        }
        return index;
      }),
      operation.args,
    ]);
    sending += 1;
    run(LIMIT_BATCH_SCRIPT, subjects, [JSON.stringify(encoded)]).then(
      (answer) => {
        sent();
        let answers: unknown = undefined;
        try {
          answers = typeof answer === 'string' ? JSON.parse(answer) : undefined;
        } catch {
          // Answered as no list: each operation fails below.
        }
        const list = Array.isArray(answers) ? (answers as readonly unknown[]) : [];
        for (const [index, operation] of operations.entries()) {
          const one = list[index];
          if (operation.kind === 'f' && one !== 1)
            operation.reject(new Error(`the limit script failed: ${String(one)}`));
          else operation.resolve(one);
        }
      },
      (error: unknown) => {
        sent();
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const operation of operations) operation.reject(failure);
      },
    );
  };

  // A function declaration: `sent` above calls it.
  function flush() {
    if (sending > 0) {
      // The batch in flight answers first; what came meanwhile goes in one batch then.
      flushWanted = true;
      return;
    }
    flushWanted = false;
    const operations = queue;
    queue = [];
    checkQueued = false;
    if (endTimer !== undefined) clearTimeout(endTimer);
    endTimer = undefined;
    for (let start = 0; start < operations.length; start += BATCH_LIMIT)
      send(operations.slice(start, start + BATCH_LIMIT));
  }

  const enqueue = (kind: 'a' | 'f', subjects: readonly string[], args: readonly (string | number)[]) =>
    new Promise<unknown>((resolve, reject) => {
      queue.push({ kind, subjects, args, resolve, reject });
      if (kind === 'a') {
        if (!checkQueued) setImmediate(flush);
        checkQueued = true;
      } else if (!checkQueued && endTimer === undefined) {
        endTimer = setTimeout(flush, END_DELAY_MS);
        endTimer.unref();
      }
    });

  return {
    acquire: async (checks, id, estimate, now) => {
      const args: (string | number)[] = [
        now,
        LIMIT_WINDOW_MS,
        LIMIT_BUCKET_MS,
        STALE_IN_FLIGHT_MS,
        id,
        estimate,
      ];
      for (const check of checks) args.push(check.rpm, check.tpm, check.concurrency);
      return verdictOf(
        await enqueue(
          'a',
          checks.map((check) => baseOf(check.key)),
          args,
        ),
        checks.length,
      );
    },
    finish: async (checks, id, tokens, release, now, admitted) => {
      const args: (string | number)[] = [
        now,
        LIMIT_WINDOW_MS,
        LIMIT_BUCKET_MS,
        id,
        tokens ?? -1,
        release ? 1 : 0,
        admitted.at,
        admitted.estimate,
      ];
      for (const check of checks) args.push(check.tpm > 0 ? 1 : 0);
      await enqueue(
        'f',
        checks.map((check) => baseOf(check.key)),
        args,
      );
    },
  };
};
