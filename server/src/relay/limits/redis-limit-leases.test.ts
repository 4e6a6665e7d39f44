import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cache } from '../../cache/cache.js';
import { limitRequestId, limitSubject, redisLimitStores } from '../../test-support/limit-subjects.js';
import { testRedisUrl } from '../../test-support/test-databases.js';
import type { LimitStore } from './limit-store.js';
import { STALE_HOLDER_MS } from './redis-limit-store.js';

const redisUrl = testRedisUrl();

const subject = limitSubject;
const id = limitRequestId;
const T0 = 1_800_000_000_000;

describe.runIf(redisUrl !== undefined)('the Redis limit store’s leases', () => {
  let caches: Cache[] = [];
  let calls = 0;
  let stores: LimitStore[] = [];
  beforeAll(async () => {
    // Two instances sharing one Redis; their script calls counted.
    ({ caches, stores } = await redisLimitStores(redisUrl ?? '', 2, () => (calls += 1)));
  });
  afterAll(async () => {
    for (const cache of caches) await cache.close();
  });
  const [a, b] = [() => stores[0] as LimitStore, () => stores[1] as LimitStore];

  it('admits most of a busy key’s requests from its lease, without asking Redis', async () => {
    const check = subject({ rpm: 1_000_000, tpm: 1_000_000_000, concurrency: 10_000 });
    calls = 0;
    for (let index = 0; index < 300; index += 1) {
      const verdict = await a().acquire([check], id(), 10, T0 + index);
      expect(verdict.refusedBy).toBeUndefined();
    }
    // 64 requests a lease, and 8 slots (none ends here): about one call in eight requests.
    expect(calls).toBeLessThanOrEqual(300 / 8 + 2);
    expect(calls).toBeGreaterThan(0);
  });

  it('gives a lease’s rest back when its second is over: the next second reads what was used', async () => {
    const check = subject({ rpm: 1_000_000, tpm: 1_000_000_000 });
    for (let index = 0; index < 5; index += 1) await a().acquire([check], id(), 7, T0 + index);
    // The other instance reads the lease as spent while its second lasts...
    const during = await b().acquire([check], id(), 0, T0 + 10);
    expect(during.readings[0]?.requests).toBeGreaterThan(5);
    // ...and only what was used once the first instance has moved on to the next second: of the
    // first second its 5 and the other's 1; of this one, its request and its new lease of 64.
    await a().acquire([check], id(), 7, T0 + 1000);
    const after = await b().acquire([check], id(), 0, T0 + 1001);
    expect(after.readings[0]).toMatchObject({ requests: 5 + 1 + (1 + 64), tokens: 5 * 7 + (7 + 64 * 7) });
  });

  it('admits exactly M over two instances near a limit, where no lease is granted', async () => {
    const check = subject({ rpm: 40 });
    let admitted = 0;
    // Both keep asking: a lease granted far from the limit is used by its own instance.
    for (let index = 0; index < 200; index += 1) {
      const store = index % 2 === 0 ? a() : b();
      if ((await store.acquire([check], id(), 0, T0 + index)).refusedBy === undefined) admitted += 1;
    }
    expect(admitted).toBe(40);
  });

  it('gives idle slots back at a request’s end near a limit, so the other instance can use them', async () => {
    const check = subject({ concurrency: 2 });
    const [first, second] = [id(), id()];
    await a().acquire([check], first, 0, T0);
    await a().acquire([check], second, 0, T0);
    expect((await b().acquire([check], id(), 0, T0 + 1)).refusedBy).toBe('concurrency');
    await a().finish([check], first, undefined, true, T0 + 2, { at: T0, estimate: 0 });
    expect((await b().acquire([check], id(), 0, T0 + 3)).refusedBy).toBeUndefined();
  });

  it('frees the slots of an instance not heard from for the stale time (killed)', async () => {
    const check = subject({ concurrency: 1 });
    // Admitted and never ended, as by an instance killed mid-request.
    await a().acquire([check], id(), 0, T0);
    expect((await b().acquire([check], id(), 0, T0 + 1)).refusedBy).toBe('concurrency');
    expect((await b().acquire([check], id(), 0, T0 + STALE_HOLDER_MS + 1)).refusedBy).toBeUndefined();
  });
  it('gives idle slots and a second’s rest back within a second far from a limit', async () => {
    const check = subject({ rpm: 100_000, concurrency: 1000 });
    const first = id();
    await a().acquire([check], first, 0, T0);
    await a().finish([check], first, undefined, true, T0 + 1, { at: T0, estimate: 0 });
    // Kept for the next request here: the request, its lease of 8 slots and of 64 requests.
    const kept = await b().acquire([check], id(), 0, T0 + 2);
    expect(kept.readings[0]).toMatchObject({ inFlight: 1 + 8, requests: 1 + 64 });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    // Both instances have given back what they did not use: the first its 9 slots and 64
    // requests, the other 8 of its slots (its request is still in flight) and its 64 requests.
    const back = await b().acquire([check], id(), 0, T0 + 2 + 2100);
    expect(back.readings[0]).toMatchObject({ inFlight: 1, requests: 2 });
  });
});
