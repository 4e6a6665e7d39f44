import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sluice } from '../boot.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { testRedisUrl } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { RATE_LIMIT_IDLE_SECONDS, type Cache } from './cache.js';
import { createMemoryCache } from './memory-cache.js';
import { createRedisCache } from './redis-cache.js';

const redisUrl = testRedisUrl();

/** A key no other test (nor an earlier run) uses. */
const uniqueKey = (label: string): string => `test-${label}-${randomBytes(6).toString('hex')}`;

/** A client address no other test (nor an earlier run) uses, for X-Forwarded-For. */
const uniqueIp = (): string => {
  const [a = 0, b = 0, c = 0] = randomBytes(3);
  return `10.${a}.${b}.${c}`;
};

const waitFor = async (check: () => Promise<boolean>, timeoutMs = 2000): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/** A cache under test plus the clock its limiter reads. */
interface ClockedCache {
  readonly cache: Cache;
  /** Moves the limiter's clock to `ms` after the start of the test. */
  readonly at: (ms: number) => void;
}

const SECOND = 1000;

/** The sliding-window rules every Cache must follow (one-api §2.4). */
const slidingWindowSuite = (make: () => Promise<ClockedCache>) => {
  let clocked: ClockedCache;
  beforeAll(async () => {
    clocked = await make();
  });
  afterAll(() => clocked?.cache.close());

  it('allows `limit` hits in a window and refuses the next', async () => {
    const { cache, at } = clocked;
    const key = uniqueKey('limit');
    at(0);
    for (let hit = 0; hit < 3; hit += 1) expect(await cache.allowRequest(key, 3, 180)).toBe(true);
    expect(await cache.allowRequest(key, 3, 180)).toBe(false);
    at(179 * SECOND);
    expect(await cache.allowRequest(key, 3, 180)).toBe(false);
  });

  it('allows again once the oldest hit is a whole window old', async () => {
    const { cache, at } = clocked;
    const key = uniqueKey('expiry');
    at(0);
    expect(await cache.allowRequest(key, 2, 180)).toBe(true);
    expect(await cache.allowRequest(key, 2, 180)).toBe(true);
    at(180 * SECOND - 1);
    expect(await cache.allowRequest(key, 2, 180)).toBe(false);
    at(180 * SECOND);
    expect(await cache.allowRequest(key, 2, 180)).toBe(true);
  });

  it('drops only the oldest hit, so the window slides', async () => {
    const { cache, at } = clocked;
    const key = uniqueKey('slide');
    at(0);
    expect(await cache.allowRequest(key, 2, 10)).toBe(true);
    at(5 * SECOND);
    expect(await cache.allowRequest(key, 2, 10)).toBe(true);
    at(6 * SECOND);
    expect(await cache.allowRequest(key, 2, 10)).toBe(false);
    // The refused hit at 6 s is not kept: the hit of 0 s is the oldest and is 10 s old now.
    at(10 * SECOND);
    expect(await cache.allowRequest(key, 2, 10)).toBe(true);
    // Kept now: 5 s and 10 s. At 11 s the oldest is 6 s old.
    at(11 * SECOND);
    expect(await cache.allowRequest(key, 2, 10)).toBe(false);
    at(15 * SECOND);
    expect(await cache.allowRequest(key, 2, 10)).toBe(true);
    at(16 * SECOND);
    expect(await cache.allowRequest(key, 2, 10)).toBe(false);
  });

  it('keeps one window per key', async () => {
    const { cache, at } = clocked;
    const first = uniqueKey('first');
    const second = uniqueKey('second');
    at(0);
    expect(await cache.allowRequest(first, 1, 60)).toBe(true);
    expect(await cache.allowRequest(first, 1, 60)).toBe(false);
    expect(await cache.allowRequest(second, 1, 60)).toBe(true);
    expect(await cache.allowRequest(`GA${first}`, 1, 60)).toBe(true);
  });
};

describe('memory cache', () => {
  describe('sliding window with a fake clock', () => {
    slidingWindowSuite(() => {
      let now = 1_700_000_000_000;
      const start = now;
      return Promise.resolve({
        cache: createMemoryCache(() => now),
        at: (ms) => {
          now = start + ms;
        },
      });
    });
  });

  it('reads the clock it is given, not the real one', async () => {
    let now = 0;
    const cache = createMemoryCache(() => now);
    expect(await cache.allowRequest('k', 1, 60)).toBe(true);
    expect(await cache.allowRequest('k', 1, 60)).toBe(false);
    now = 60 * SECOND;
    expect(await cache.allowRequest('k', 1, 60)).toBe(true);
  });

  it('forgets every window on close', async () => {
    const cache = createMemoryCache(() => 0);
    expect(await cache.allowRequest('k', 1, 60)).toBe(true);
    expect(await cache.allowRequest('k', 1, 60)).toBe(false);
    await cache.close();
    expect(await cache.allowRequest('k', 1, 60)).toBe(true);
  });

  it('publishes to nobody: one instance has no one to tell', async () => {
    const cache = createMemoryCache();
    const received: string[] = [];
    await cache.subscribe('options', (message) => received.push(message));
    await cache.publish('options', 'SystemName');
    expect(received).toEqual([]);
    expect(cache.kind).toBe('memory');
  });
});

describe.skipIf(!redisUrl)('redis cache', () => {
  const url = redisUrl ?? '';
  let admin: Redis;
  const usedKeys: string[] = [];
  beforeAll(() => {
    admin = new Redis(url);
  });
  afterAll(async () => {
    if (usedKeys.length > 0) await admin.del(...usedKeys);
    await admin.quit();
  });

  describe('sliding window with a fake clock', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    slidingWindowSuite(async () => {
      const cache = await createRedisCache(url);
      const start = 1_700_000_000_000;
      return {
        cache,
        at: (ms) => {
          vi.useFakeTimers({ toFake: ['Date'] });
          vi.setSystemTime(start + ms);
        },
      };
    });
  });

  describe('shared between instances', () => {
    let first: Cache;
    let second: Cache;
    beforeAll(async () => {
      first = await createRedisCache(url);
      second = await createRedisCache(url);
    });
    afterAll(async () => {
      await first?.close();
      await second?.close();
    });

    it('is a redis cache', () => {
      expect(first.kind).toBe('redis');
    });

    it('counts the hits of both instances in one window', async () => {
      const key = uniqueKey('shared');
      usedKeys.push(`sluice:rate:${key}`);
      expect(await first.allowRequest(key, 3, 60)).toBe(true);
      expect(await second.allowRequest(key, 3, 60)).toBe(true);
      expect(await first.allowRequest(key, 3, 60)).toBe(true);
      expect(await second.allowRequest(key, 3, 60)).toBe(false);
      expect(await first.allowRequest(key, 3, 60)).toBe(false);
    });

    it('never lets concurrent hits through over the limit', async () => {
      const key = uniqueKey('race');
      usedKeys.push(`sluice:rate:${key}`);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? first : second).allowRequest(key, 7, 60)),
      );
      expect(results.filter(Boolean)).toHaveLength(7);
    });

    it('stores the window under the sluice prefix and lets an idle one expire after 20 minutes', async () => {
      const key = uniqueKey('ttl');
      usedKeys.push(`sluice:rate:${key}`);
      expect(await first.allowRequest(key, 5, 180)).toBe(true);
      expect(await first.allowRequest(key, 5, 180)).toBe(true);
      expect(await admin.llen(`sluice:rate:${key}`)).toBe(2);
      const ttl = await admin.ttl(`sluice:rate:${key}`);
      expect(ttl).toBeGreaterThan(RATE_LIMIT_IDLE_SECONDS - 10);
      expect(ttl).toBeLessThanOrEqual(RATE_LIMIT_IDLE_SECONDS);
      // A window longer than the idle time is kept as long as the window.
      const long = uniqueKey('long');
      usedKeys.push(`sluice:rate:${long}`);
      expect(await first.allowRequest(long, 1, 3600)).toBe(true);
      expect(await admin.ttl(`sluice:rate:${long}`)).toBeGreaterThan(RATE_LIMIT_IDLE_SECONDS);
    });

    it('keeps no more hits than the limit', async () => {
      const key = uniqueKey('trim');
      usedKeys.push(`sluice:rate:${key}`);
      for (let hit = 0; hit < 6; hit += 1) await first.allowRequest(key, 3, 60);
      expect(await admin.llen(`sluice:rate:${key}`)).toBe(3);
    });

    it('delivers a message to the other instances but not back to the sender', async () => {
      const topic = uniqueKey('topic');
      const toFirst: string[] = [];
      const toSecond: string[] = [];
      await first.subscribe(topic, (message) => toFirst.push(message));
      await second.subscribe(topic, (message) => toSecond.push(message));
      await first.publish(topic, 'hello from first');
      expect(await waitFor(() => Promise.resolve(toSecond.length > 0))).toBe(true);
      expect(toSecond).toEqual(['hello from first']);
      await second.publish(topic, 'hello from second');
      expect(await waitFor(() => Promise.resolve(toFirst.length > 0))).toBe(true);
      expect(toFirst).toEqual(['hello from second']);
      // Give a wrongly echoed message time to arrive before checking there was none.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(toSecond).toEqual(['hello from first']);
    });

    it('tells its resync handlers when its subscription comes back after a break, and hears again', async () => {
      const subscribers = async () =>
        new Set(
          String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
            .split('\n')
            .filter((line) => / name=sluice-sub-/.test(line))
            .map((line) => /^id=(\d+)/.exec(line)?.[1] ?? ''),
        );
      const before = await subscribers();
      const third = await createRedisCache(url);
      try {
        const topic = uniqueKey('resync');
        const received: string[] = [];
        await third.subscribe(topic, (message) => received.push(message));
        let resyncs = 0;
        third.onResync(() => {
          resyncs += 1;
        });
        const mine = [...(await subscribers())].filter((id) => !before.has(id));
        expect(mine).toHaveLength(1);
        await admin.call('CLIENT', 'KILL', 'ID', mine[0] ?? '');
        expect(await waitFor(() => Promise.resolve(resyncs > 0), 5000)).toBe(true);
        // Subscribed again: a message published now arrives.
        expect(
          await waitFor(async () => {
            await first.publish(topic, 'after the break');
            return received.includes('after the break');
          }, 5000),
        ).toBe(true);
      } finally {
        await third.close();
      }
    });

    it('ignores a message on the channel that is not its own envelope', async () => {
      const topic = uniqueKey('garbage');
      const received: string[] = [];
      await first.subscribe(topic, (message) => received.push(message));
      await admin.publish(`sluice:${topic}`, 'not json');
      await second.publish(topic, 'after the garbage');
      expect(await waitFor(() => Promise.resolve(received.length > 0))).toBe(true);
      expect(received).toEqual(['after the garbage']);
    });

    it('refuses to start when Redis cannot be reached, and stops trying', async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        await expect(createRedisCache('redis://127.0.0.1:1')).rejects.toThrow(
          /^cannot reach Redis at REDIS_CONN_STRING: .*ECONNREFUSED/,
        );
        errors.mockClear();
        // ioredis retries after 50, 100, 150… ms and reports each failure when nobody listens.
        await new Promise((resolve) => setTimeout(resolve, 400));
        expect(errors).not.toHaveBeenCalled();
      } finally {
        errors.mockRestore();
      }
    });
  });

  describe('two Sluice instances on one SQLite database', () => {
    let test: TestSluice;
    let other: Sluice;
    beforeAll(async () => {
      // No IP limits here: the limiter has its own pair below.
      test = await startTestSluice('sqlite', {
        REDIS_CONN_STRING: url,
        GLOBAL_API_RATE_LIMIT: '0',
        CRITICAL_RATE_LIMIT: '0',
      });
      other = await test.boot();
    });
    afterAll(() => test?.close());

    const statusOf = async (sluice: Sluice) => {
      const response = await apiClient(sluice.app).get('/api/status');
      expect(response.body.success).toBe(true);
      return response.body.data as {
        system_name: string;
        quota_per_unit: number;
        display_in_currency: boolean;
      };
    };

    it('shows an option changed on one instance in the other without a restart', async () => {
      expect(test.sluice.services.deps.cache.kind).toBe('redis');
      expect(other.services.deps.cache.kind).toBe('redis');
      expect((await statusOf(other)).system_name).toBe('Sluice');
      const root = apiClient(test.sluice.app);
      await root.login('root', '123456');
      const name = `Gateway ${randomBytes(3).toString('hex')}`;
      expect((await root.put('/api/option/', { key: 'SystemName', value: name })).body.success).toBe(true);
      expect(await waitFor(async () => (await statusOf(other)).system_name === name)).toBe(true);
    });

    it('carries typed values and works in both directions', async () => {
      const root = apiClient(other.app);
      await root.login('root', '123456');
      expect((await root.put('/api/option/', { key: 'QuotaPerUnit', value: '250000' })).body.success).toBe(
        true,
      );
      expect(
        (await root.put('/api/option/', { key: 'DisplayInCurrencyEnabled', value: 'false' })).body.success,
      ).toBe(true);
      expect(
        await waitFor(async () => {
          const status = await statusOf(test.sluice);
          return status.quota_per_unit === 250000 && !status.display_in_currency;
        }),
      ).toBe(true);
      expect(test.sluice.services.options.values.QuotaPerUnit).toBe(250000);
      const onFirst = apiClient(test.sluice.app);
      await onFirst.login('root', '123456');
      const listed = (await onFirst.get('/api/option/')).body.data as { key: string; value: string }[];
      expect(listed).toContainEqual({ key: 'QuotaPerUnit', value: '250000' });
    });
  });

  describe('the IP limiter of two Sluice instances', () => {
    let test: TestSluice;
    let other: Sluice;
    const keys: string[] = [];
    beforeAll(async () => {
      test = await startTestSluice('sqlite', {
        REDIS_CONN_STRING: url,
        GLOBAL_API_RATE_LIMIT: '5',
        CRITICAL_RATE_LIMIT: '2',
        TRUST_PROXY: 'true',
      });
      other = await test.boot();
    });
    afterAll(async () => {
      await test?.close();
      if (keys.length > 0) await admin.del(...keys);
    });

    /** A client of `sluice` that claims to come from `ip` (the proxy is trusted). */
    const from = (sluice: Sluice, ip: string) => {
      const client: ApiClient = apiClient(sluice.app);
      const headers = { 'x-forwarded-for': `${ip}, 192.0.2.1` };
      return {
        status: () => client.get('/api/status', { headers }),
        login: () =>
          client.post('/api/user/login', { username: 'root', password: 'not-the-password' }, { headers }),
      };
    };

    it('shares the global API window between the instances', async () => {
      const ip = uniqueIp();
      keys.push(`sluice:rate:GA${ip}`);
      const onFirst = from(test.sluice, ip);
      const onOther = from(other, ip);
      for (const call of [onFirst, onOther, onFirst, onOther, onFirst])
        expect((await call.status()).status).toBe(200);
      const refused = await onOther.status();
      expect(refused.status).toBe(429);
      expect(refused.text).toBe('');
      expect((await onFirst.status()).status).toBe(429);
      // Another client is not affected.
      const stranger = uniqueIp();
      keys.push(`sluice:rate:GA${stranger}`);
      expect((await from(other, stranger).status()).status).toBe(200);
      expect(await admin.llen(`sluice:rate:GA${ip}`)).toBe(5);
    });

    it('shares the critical window between the instances', async () => {
      const ip = uniqueIp();
      keys.push(`sluice:rate:GA${ip}`, `sluice:rate:CT${ip}`);
      expect((await from(test.sluice, ip).login()).body.success).toBe(false);
      expect((await from(other, ip).login()).status).toBe(200);
      const refused = await from(test.sluice, ip).login();
      expect(refused.status).toBe(429);
      expect(refused.text).toBe('');
      expect((await from(other, ip).status()).status).toBe(200);
    });
  });
});
