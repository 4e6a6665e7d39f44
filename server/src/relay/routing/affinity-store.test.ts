import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRedisCache } from '../../cache/redis-cache.js';
import { testRedisUrl } from '../../test-support/test-databases.js';
import { createAffinityStore, REDIS_WAIT_MS } from './affinity-store.js';

const redisUrl = testRedisUrl();

describe('the affinity store in memory', () => {
  it('keeps a pin for its TTL, refreshed on use, and forgets it when told', () => {
    const clock = { at: 0 };
    const store = createAffinityStore({ now: () => clock.at });
    store.remember('c1', { channelId: 4, keyId: 'abcd' }, 1000);
    clock.at = 900;
    expect(store.lookup('c1', 1000)).toEqual({ channelId: 4, keyId: 'abcd' });
    // Refreshed at 900: still there at 1800, gone after 2900.
    clock.at = 1800;
    expect(store.lookup('c1', 1000)).toEqual({ channelId: 4, keyId: 'abcd' });
    clock.at = 2801;
    expect(store.lookup('c1', 1000)).toBeUndefined();
    store.remember('c2', { channelId: 5 }, 1000);
    store.forget('c2');
    expect(store.lookup('c2', 1000)).toBeUndefined();
  });
});

describe('the affinity store when Redis fails', () => {
  it('goes on with its memory when Redis refuses, and when it does not answer in time', async () => {
    const refusing = createAffinityStore({ run: () => Promise.reject(new Error('connection refused')) });
    refusing.remember('c1', { channelId: 7 }, 60_000);
    await expect(refusing.lookup('c1', 60_000)).resolves.toEqual({ channelId: 7 });
    await expect(refusing.lookup('nobody', 60_000)).resolves.toBeUndefined();
    const silent = createAffinityStore({ run: () => new Promise(() => undefined) });
    silent.remember('c1', { channelId: 8 }, 60_000);
    const started = performance.now();
    await expect(silent.lookup('c1', 60_000)).resolves.toEqual({ channelId: 8 });
    expect(performance.now() - started).toBeLessThan(REDIS_WAIT_MS + 200);
  });
});

describe.runIf(redisUrl !== undefined)('the affinity store on Redis', () => {
  it('shares a pin between two stores, with its TTL set and refreshed on use', async () => {
    const first = await createRedisCache(redisUrl ?? '', () => undefined);
    const second = await createRedisCache(redisUrl ?? '', () => undefined);
    const redis = new Redis(redisUrl ?? '');
    try {
      const a = createAffinityStore({ run: first.runScript });
      const b = createAffinityStore({ run: second.runScript });
      const name = `test-${Date.now()}`;
      a.remember(name, { channelId: 12, keyId: 'k1' }, 5000);
      await expect.poll(() => redis.get(`sluice:affinity:${name}`)).toBe('12 k1');
      await expect(b.lookup(name, 60_000)).resolves.toEqual({ channelId: 12, keyId: 'k1' });
      expect(await redis.pttl(`sluice:affinity:${name}`)).toBeGreaterThan(50_000);
      b.forget(name);
      await expect.poll(() => redis.exists(`sluice:affinity:${name}`)).toBe(0);
      await expect(a.lookup(name, 60_000)).resolves.toBeUndefined();
    } finally {
      redis.disconnect();
      await first.close();
      await second.close();
    }
  });
});
