import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cache } from '../../cache/cache.js';
import { createRedisCache } from '../../cache/redis-cache.js';
import { limitRequestId, limitSubject, redisLimitStores } from '../../test-support/limit-subjects.js';
import { testRedisUrl } from '../../test-support/test-databases.js';
import {
  LIMIT_BUCKET_MS,
  LIMIT_WINDOW_MS,
  type LimitAdmission,
  type LimitCheck,
  type LimitStore,
  type LimitVerdict,
} from './limit-store.js';
import { createMemoryLimitStore } from './memory-limit-store.js';
import { createRedisLimitStore } from './redis-limit-store.js';

const redisUrl = testRedisUrl();

const subject = limitSubject;
const id = limitRequestId;

/**
 * What each request was counted with and by which store, for its end: the limiter keeps it on the
 * request's lease, and the instance that admitted a request ends it.
 */
const admissions = new Map<string, LimitAdmission & { store: LimitStore }>();
const counting = (storeOf: () => LimitStore) => ({
  acquire: (checks: readonly LimitCheck[], request: string, estimate: number, at: number) => {
    const store = storeOf();
    admissions.set(request, { at, estimate, store });
    return store.acquire(checks, request, estimate, at);
  },
  finish: (
    checks: readonly LimitCheck[],
    request: string,
    tokens: number | undefined,
    release: boolean,
    at: number,
  ) => {
    const admitted = admissions.get(request);
    return (admitted?.store ?? storeOf()).finish(
      checks,
      request,
      tokens,
      release,
      at,
      admitted ?? { at, estimate: 0 },
    );
  },
});

/** The same behaviour of both stores, on a clock the test moves (the Redis script takes `now` as given). */
const suite = (name: string, storeOf: () => LimitStore) =>
  describe(`the ${name} limit store`, () => {
    const T0 = 1_800_000_000_000;
    const store = () => counting(storeOf);
    const B = LIMIT_BUCKET_MS;

    it('admits exactly N requests a minute and the next one once the oldest one’s second has left', async () => {
      const check = subject({ rpm: 3 });
      for (const at of [0, 10_000, 20_000])
        expect((await store().acquire([check], id(), 0, T0 + at)).refusedBy).toBeUndefined();
      const refused = await store().acquire([check], id(), 0, T0 + 30_000);
      expect(refused.refusedBy).toBe('rpm');
      // The first request's second (T0 to T0 + 1 s) leaves the window at T0 + 61 s: 31 s from now.
      expect(refused.retryAfterMs).toBe(B + 30_000);
      expect(refused.readings[0]).toMatchObject({ requests: 3, requestsResetMs: B + 30_000 });
      for (const at of [LIMIT_WINDOW_MS - 1, LIMIT_WINDOW_MS, LIMIT_WINDOW_MS + B - 1])
        expect((await store().acquire([check], id(), 0, T0 + at)).refusedBy).toBe('rpm');
      expect((await store().acquire([check], id(), 0, T0 + LIMIT_WINDOW_MS + B)).refusedBy).toBeUndefined();
      expect((await store().acquire([check], id(), 0, T0 + LIMIT_WINDOW_MS + B + 1)).refusedBy).toBe('rpm');
    });

    it('admits N of many parallel requests, exactly', async () => {
      const check = subject({ rpm: 7 });
      const verdicts = await Promise.all(
        Array.from({ length: 40 }, () => store().acquire([check], id(), 0, T0)),
      );
      expect(verdicts.filter((verdict) => verdict.refusedBy === undefined)).toHaveLength(7);
    });

    it('counts tokens on the estimate, then on the settled usage, counted when settled', async () => {
      const check = subject({ tpm: 100 });
      const first = id();
      expect((await store().acquire([check], first, 30, T0)).refusedBy).toBeUndefined();
      // 30 on account + 60 ≤ 100: admitted.
      const second = id();
      expect((await store().acquire([check], second, 60, T0 + 1000)).refusedBy).toBeUndefined();
      expect((await store().acquire([check], id(), 20, T0 + 2000)).refusedBy).toBe('tpm');
      // The first was a short answer: 5 tokens in all, counted at its end.
      await store().finish([check], first, 5, false, T0 + 3000);
      const reading = await store().acquire([check], id(), 20, T0 + 4000);
      expect(reading.refusedBy).toBeUndefined();
      expect(reading.readings[0]?.tokens).toBe(65);
      // The second answered 200 tokens: over the limit now, until they leave the window.
      await store().finish([check], second, 200, false, T0 + 5000);
      const over = await store().acquire([check], id(), 1, T0 + 6000);
      expect(over.refusedBy).toBe('tpm');
      expect(over.readings[0]?.tokens).toBe(225);
      // The 20 of T0 + 4 s leave at T0 + 65 s, but the 200 of T0 + 5 s must leave too (at T0 + 66 s).
      expect(over.retryAfterMs).toBe(5000 + B + LIMIT_WINDOW_MS - 6000);
      expect((await store().acquire([check], id(), 1, T0 + 5000 + B + LIMIT_WINDOW_MS - 1)).refusedBy).toBe(
        'tpm',
      );
      expect(
        (await store().acquire([check], id(), 1, T0 + 5000 + B + LIMIT_WINDOW_MS)).refusedBy,
      ).toBeUndefined();
    });

    it('resets the tokens from the oldest still counted once an earlier request settled', async () => {
      const check = subject({ tpm: 1000 });
      const [early, later] = [id(), id()];
      await store().acquire([check], early, 30, T0);
      await store().acquire([check], later, 10, T0 + 1000);
      await store().finish([check], early, 5, false, T0 + 2000);
      // The 10 of T0 + 1 s are the oldest now: they leave at T0 + 62 s.
      const reading = await store().acquire([check], id(), 0, T0 + 3000);
      expect(reading.readings[0]).toMatchObject({ tokens: 15, tokensResetMs: LIMIT_WINDOW_MS - 1000 });
      const after = await store().acquire([check], id(), 0, T0 + 2 * B + LIMIT_WINDOW_MS);
      expect(after.readings[0]).toMatchObject({ tokens: 5, tokensResetMs: 1000 });
    });

    it('admits a request larger than the limit when the window is empty (at most one over)', async () => {
      const check = subject({ tpm: 10 });
      expect((await store().acquire([check], id(), 50, T0)).refusedBy).toBeUndefined();
      expect((await store().acquire([check], id(), 1, T0 + 1)).refusedBy).toBe('tpm');
    });

    it('lets thousands of requests’ tokens leave the window at once', async () => {
      const check = subject({ tpm: 1_000_000 });
      await Promise.all(Array.from({ length: 9000 }, () => store().acquire([check], id(), 1, T0)));
      const later = await store().acquire([check], id(), 1, T0 + LIMIT_WINDOW_MS + B);
      expect(later.refusedBy).toBeUndefined();
      expect(later.readings[0]?.tokens).toBe(0);
    });

    it('gives a failed request’s estimate back (settled at 0)', async () => {
      const check = subject({ tpm: 100 });
      const failed = id();
      await store().acquire([check], failed, 90, T0);
      expect((await store().acquire([check], id(), 20, T0 + 1)).refusedBy).toBe('tpm');
      await store().finish([check], failed, 0, false, T0 + 2);
      expect((await store().acquire([check], id(), 20, T0 + 3)).refusedBy).toBeUndefined();
    });

    it('holds a slot in flight until the request is released', async () => {
      const check = subject({ concurrency: 2 });
      const [a, b] = [id(), id()];
      await store().acquire([check], a, 0, T0);
      await store().acquire([check], b, 0, T0);
      const refused = await store().acquire([check], id(), 0, T0 + 1);
      expect(refused.refusedBy).toBe('concurrency');
      expect(refused.readings[0]?.inFlight).toBe(2);
      await store().finish([check], a, undefined, true, T0 + 2);
      expect((await store().acquire([check], id(), 0, T0 + 3)).refusedBy).toBeUndefined();
    });

    it('counts a request in no subject when one of them refuses it', async () => {
      const key = subject({ rpm: 10 });
      const group = subject({ rpm: 1 });
      expect((await store().acquire([key, group], id(), 0, T0)).refusedBy).toBeUndefined();
      const refused = await store().acquire([key, group], id(), 0, T0 + 1);
      expect(refused.refusedBy).toBe('rpm');
      expect(refused.readings.map((reading) => reading.requests)).toEqual([1, 1]);
      const alone = await store().acquire([key], id(), 0, T0 + 2);
      expect(alone.readings[0]?.requests).toBe(1);
    });
  });

suite(
  'memory',
  (() => {
    const store = createMemoryLimitStore();
    return () => store;
  })(),
);

describe.runIf(redisUrl !== undefined)('on Redis', () => {
  let caches: Cache[] = [];
  let stores: LimitStore[] = [];
  beforeAll(async () => {
    // Two connections, as two instances have.
    ({ caches, stores } = await redisLimitStores(redisUrl ?? '', 2));
  });
  afterAll(async () => {
    for (const cache of caches) await cache.close();
  });
  // Each test on one of two stores, as on one instance of two: a store ends what it admitted, and
  // its leases are its own (the e2e suite runs two instances against one limit).
  suite('Redis', () => {
    const name = expect.getState().currentTestName ?? '';
    const store = stores[name.length % 2];
    if (!store) throw new Error('no store');
    return store;
  });
});

describe.runIf(redisUrl !== undefined)('the Redis limit store’s batches', () => {
  let cache: Cache | undefined;
  let calls = 0;
  let store: LimitStore;
  beforeAll(async () => {
    cache = await createRedisCache(redisUrl ?? '');
    const run = cache.runScript;
    if (!run) throw new Error('the Redis cache runs no scripts');
    store = createRedisLimitStore((script, keys, args) => {
      calls += 1;
      return run(script, keys, args);
    });
  });
  afterAll(async () => {
    await cache?.close();
  });

  it('sends the checks and ends of one turn in one call, each answered as if alone', async () => {
    const T0 = 1_800_000_000_000;
    const check = subject({ rpm: 5, concurrency: 20 });
    calls = 0;
    const verdicts = await Promise.all(Array.from({ length: 12 }, () => store.acquire([check], id(), 0, T0)));
    expect(calls).toBe(1);
    expect(verdicts.filter((verdict) => verdict.refusedBy === undefined)).toHaveLength(5);
    // In order: the n-th check saw the n-1 before it (the refused ones counted nowhere).
    expect(verdicts.map((verdict) => verdict.readings[0]?.requests)).toEqual([
      0, 1, 2, 3, 4, 5, 5, 5, 5, 5, 5, 5,
    ]);
    calls = 0;
    const limited = subject({ tpm: 60 });
    const first = id();
    const [, , after] = await Promise.all([
      store.acquire([limited], first, 50, T0),
      // Settled at 0 before the next check, in the same batch: the next check sees the room.
      store.finish([limited], first, 0, false, T0 + 1, { at: T0, estimate: 50 }),
      store.acquire([limited], id(), 50, T0 + 2),
    ]);
    expect(calls).toBe(1);
    expect(after.refusedBy).toBeUndefined();
    expect(after.readings[0]?.tokens).toBe(0);
  });

  it('fails only the operation that failed in a batch', async () => {
    const T0 = 1_800_000_000_000;
    const good = subject({ rpm: 2 });
    // A subject whose window key holds a string: Redis answers WRONGTYPE to that check alone.
    const bad = subject({ rpm: 2 });
    await cache?.runScript?.("return redis.call('SET', KEYS[1], 'x')", [`sluice:limit:{${bad.key}}:rb`], []);
    calls = 0;
    const [before, failed, after] = await Promise.allSettled([
      store.acquire([good], id(), 0, T0),
      store.acquire([bad], id(), 0, T0),
      store.acquire([good], id(), 0, T0),
    ]);
    expect(calls).toBe(1);
    expect(before).toMatchObject({ status: 'fulfilled', value: { refusedBy: undefined } });
    expect(failed).toMatchObject({ status: 'rejected' });
    expect(String((failed as PromiseRejectedResult).reason)).toMatch(/limit script failed: .*WRONGTYPE/);
    expect(after).toMatchObject({ status: 'fulfilled', value: { refusedBy: undefined } });
    expect((after as PromiseFulfilledResult<LimitVerdict>).value.readings[0]?.requests).toBe(1);
  });
  it('keeps a window of thousands of requests as a few numbers, whose sum is the requests’', async () => {
    const T0 = 1_800_000_000_000;
    const check = subject({ rpm: 1_000_000, tpm: 1_000_000_000 });
    const base = `sluice:limit:{${check.key}}:`;
    // 3,000 requests over three seconds: a log of every request would hold 3,000 entries per window.
    for (let second = 0; second < 3; second += 1)
      await Promise.all(
        Array.from({ length: 1000 }, (_, index) =>
          store.acquire([check], id(), 7, T0 + second * 1000 + index),
        ),
      );
    const fields = async (key: string) =>
      (await cache?.runScript?.("return redis.call('HGETALL', KEYS[1])", [key], [])) as string[];
    const requests = await fields(`${base}rb`);
    // Three buckets, their sum and the oldest: 5 fields, 10 values.
    expect(requests).toHaveLength(10);
    const reading = await store.acquire([check], id(), 0, T0 + 3000);
    expect(reading.readings[0]).toMatchObject({ requests: 3000, tokens: 21_000 });
    expect(await fields(`${base}tb`)).toHaveLength(10);
  });
});
