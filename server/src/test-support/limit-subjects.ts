import { randomBytes } from 'node:crypto';
import type { Cache } from '../cache/cache.js';
import { createRedisCache } from '../cache/redis-cache.js';
import type { LimitCheck, LimitStore } from '../relay/limits/limit-store.js';
import { createRedisLimitStore } from '../relay/limits/redis-limit-store.js';

/** A limit subject no other test (nor an earlier run, nor another suite on the same Redis) uses. */
export const limitSubject = (limits: Partial<Omit<LimitCheck, 'key'>>): LimitCheck => ({
  key: `t:test-${randomBytes(6).toString('hex')}`,
  rpm: 0,
  tpm: 0,
  concurrency: 0,
  ...limits,
});

let serial = 0;

/** A request id of its own. */
export const limitRequestId = (): string => `request-${(serial += 1)}`;

/**
 * `count` stores on one Redis, each on a connection of its own as instances are; `onCall` is told
 * of each script call.
 */
export const redisLimitStores = async (
  url: string,
  count: number,
  onCall: () => void = () => undefined,
): Promise<{ caches: Cache[]; stores: LimitStore[] }> => {
  const caches = await Promise.all(Array.from({ length: count }, () => createRedisCache(url)));
  const stores = caches.map((cache) => {
    const run = cache.runScript;
    if (!run) throw new Error('the Redis cache runs no scripts');
    return createRedisLimitStore((script, keys, args) => {
      onCall();
      return run(script, keys, args);
    });
  });
  return { caches, stores };
};
