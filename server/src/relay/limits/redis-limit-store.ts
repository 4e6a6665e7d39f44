import {
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

/** A check's or an end's keys and arguments, waiting for the next batch. */
interface Operation {
  readonly kind: 'a' | 'f';
  readonly keys: readonly string[];
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

/**
 * The windows shared by every instance on one Redis. Every check and end of one turn of the event
 * loop goes to Redis in one script call (LIMIT_BATCH_SCRIPT), run in the order they came, each
 * atomic as its own script was: under load one round trip serves many requests, alone one serves
 * one (a turn later than at once: microseconds).
 */
export const createRedisLimitStore = (run: ScriptRunner): LimitStore => {
  let queue: Operation[] = [];

  const send = (operations: readonly Operation[]) => {
    const keys: string[] = [];
    const args: (string | number)[] = [operations.length];
    for (const operation of operations) {
      keys.push(...operation.keys);
      args.push(operation.kind, operation.keys.length, operation.args.length, ...operation.args);
    }
    run(LIMIT_BATCH_SCRIPT, keys, args).then(
      (answer) => {
        const answers = Array.isArray(answer) ? (answer as readonly unknown[]) : [];
        for (const [index, operation] of operations.entries()) {
          const one = answers[index];
          if (operation.kind === 'f' && one !== 1)
            operation.reject(new Error(`the limit script failed: ${String(one)}`));
          else operation.resolve(one);
        }
      },
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const operation of operations) operation.reject(failure);
      },
    );
  };

  const flush = () => {
    const operations = queue;
    queue = [];
    for (let start = 0; start < operations.length; start += BATCH_LIMIT)
      send(operations.slice(start, start + BATCH_LIMIT));
  };

  const enqueue = (kind: 'a' | 'f', keys: readonly string[], args: readonly (string | number)[]) =>
    new Promise<unknown>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ kind, keys, args, resolve, reject });
    });

  return {
    acquire: async (checks, id, estimate, now) => {
      const keys: string[] = [];
      const args: (string | number)[] = [now, LIMIT_WINDOW_MS, STALE_IN_FLIGHT_MS, id, estimate];
      for (const check of checks) {
        const base = `${PREFIX}{${check.key}}:`;
        keys.push(`${base}r`, `${base}t`, `${base}h`, `${base}c`);
        args.push(check.rpm, check.tpm, check.concurrency);
      }
      return verdictOf(await enqueue('a', keys, args), checks.length);
    },
    finish: async (checks, id, tokens, release, now) => {
      const keys: string[] = [];
      const args: (string | number)[] = [now, LIMIT_WINDOW_MS, id, tokens ?? -1, release ? 1 : 0];
      for (const check of checks) {
        const base = `${PREFIX}{${check.key}}:`;
        keys.push(`${base}t`, `${base}h`, `${base}c`);
        args.push(check.tpm > 0 ? 1 : 0);
      }
      await enqueue('f', keys, args);
    },
  };
};
