import {
  LIMIT_WINDOW_MS,
  STALE_IN_FLIGHT_MS,
  type LimitKind,
  type LimitReading,
  type LimitStore,
} from './limit-store.js';
import { ACQUIRE_SCRIPT, FINISH_SCRIPT } from './redis-limit-scripts.js';

/** Runs a Lua script on the shared Redis (the cache's connection: cache.ts `runScript`). */
export type ScriptRunner = (
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[],
) => Promise<unknown>;

const PREFIX = 'sluice:limit:';
const KIND_OF: Readonly<Record<string, LimitKind>> = { rpm: 'rpm', tpm: 'tpm', concurrency: 'concurrency' };

const numberAt = (values: readonly unknown[], index: number): number => Number(values[index] ?? 0);

/** The windows shared by every instance on one Redis: one atomic script per check, one per end. */
export const createRedisLimitStore = (run: ScriptRunner): LimitStore => ({
  acquire: async (checks, id, estimate, now) => {
    const keys: string[] = [];
    const args: (string | number)[] = [now, LIMIT_WINDOW_MS, STALE_IN_FLIGHT_MS, id, estimate];
    for (const check of checks) {
      const base = `${PREFIX}{${check.key}}:`;
      keys.push(`${base}r`, `${base}t`, `${base}h`, `${base}c`);
      args.push(check.rpm, check.tpm, check.concurrency);
    }
    const answer = await run(ACQUIRE_SCRIPT, keys, args);
    if (!Array.isArray(answer)) throw new Error('the limit script answered no list');
    const values = answer as readonly unknown[];
    const kind = typeof values[0] === 'string' ? values[0] : '';
    const readings: LimitReading[] = checks.map((_, index) => {
      const at = 2 + index * 5;
      return {
        requests: numberAt(values, at),
        requestsResetMs: numberAt(values, at + 1),
        tokens: numberAt(values, at + 2),
        tokensResetMs: numberAt(values, at + 3),
        inFlight: numberAt(values, at + 4),
      };
    });
    return {
      refusedBy: KIND_OF[kind],
      retryAfterMs: numberAt(values, 1),
      readings,
    };
  },
  finish: async (checks, id, tokens, release, now) => {
    const keys: string[] = [];
    const args: (string | number)[] = [now, LIMIT_WINDOW_MS, id, tokens ?? -1, release ? 1 : 0];
    for (const check of checks) {
      const base = `${PREFIX}{${check.key}}:`;
      keys.push(`${base}t`, `${base}h`, `${base}c`);
      args.push(check.tpm > 0 ? 1 : 0);
    }
    await run(FINISH_SCRIPT, keys, args);
  },
});
