import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { testRedisUrl } from '../../test-support/test-databases.js';
import { createLiveCounters, type LiveCounters } from './live-counters.js';
import { channelsOf, minutesOf, modelsOf, ratesOf } from './live-snapshot.js';

const redisUrl = testRedisUrl();
const MINUTE = 60_000;
const START = 29_000_000 * MINUTE;

/** Two requests of user 7 in the first minute, one of user 8 in the next; channel 3 failed once. */
const feed = (counters: LiveCounters) => {
  counters.answered(3, 100);
  counters.settled(7, 'gpt-4o', 100, 20, 40, 50);
  counters.failed(3);
  counters.answered(3, 300);
  counters.settled(7, 'gpt-4o', 200, 10, 0, 70);
};

describe('the live counters in memory', () => {
  it('count per minute, user, channel and model, and read only the minutes asked for', async () => {
    let now = START + 10_000;
    const counters = createLiveCounters({ now: () => now });
    feed(counters);
    now += MINUTE;
    counters.settled(8, 'claude:sonnet', 10, 5, 10, 9);
    const window = await counters.read(3, now);
    expect(minutesOf(window).map((minute) => [minute.requests, minute.tokens])).toEqual([
      [0, 0],
      [2, 330],
      [1, 15],
    ]);
    expect(minutesOf(window, 7).map((minute) => minute.requests)).toEqual([0, 2, 0]);
    expect(minutesOf(window)[2]?.minute).toBe((now - (now % MINUTE)) / 1000);
    expect(channelsOf(window)).toEqual([
      { channel_id: 3, attempts: 3, errors: 1, error_rate: 1 / 3, first_byte_ms: 200 },
    ]);
    expect(modelsOf(window)).toEqual([
      { model: 'gpt-4o', prompt_tokens: 300, cached_tokens: 40, cache_hit_rate: 40 / 300 },
      { model: 'claude:sonnet', prompt_tokens: 10, cached_tokens: 10, cache_hit_rate: 1 },
    ]);
    const later = await counters.read(3, now + 5 * MINUTE);
    expect(minutesOf(later).every((minute) => minute.requests === 0)).toBe(true);
  });

  it('count right for more models, users and channels than their names are kept for', async () => {
    const now = START + 10_000;
    const counters = createLiveCounters({ now: () => now });
    for (let round = 0; round < 2; round += 1)
      for (let i = 0; i < 10_050; i += 1) {
        counters.answered(i, 10);
        counters.settled(i, `model-${i}`, 3, 1, 1, 2);
      }
    const window = await counters.read(1, now);
    expect(minutesOf(window)[0]?.requests).toBe(20_100);
    expect(minutesOf(window, 10_049)[0]?.requests).toBe(2);
    const models = modelsOf(window);
    expect(models).toHaveLength(10_050);
    expect(models.find((model) => model.model === 'model-7')?.prompt_tokens).toBe(6);
    expect(channelsOf(window).find((channel) => channel.channel_id === 10_049)?.attempts).toBe(2);
  });

  it('rates the last 60 seconds: the current minute and the share of the one before still inside', () => {
    const minutes = [
      { minute: 0, requests: 60, tokens: 600 },
      { minute: 60, requests: 10, tokens: 100 },
    ];
    expect(ratesOf(minutes, 60_000)).toEqual({ rpm: 70, tpm: 700 });
    expect(ratesOf(minutes, 90_000)).toEqual({ rpm: 40, tpm: 400 });
    expect(ratesOf([], 0)).toEqual({ rpm: 0, tpm: 0 });
  });
});

describe.runIf(redisUrl !== undefined)('the live counters of two instances sharing Redis', () => {
  const redis = new Redis(redisUrl ?? '');
  const prefix = `sluice:test-live:${randomBytes(4).toString('hex')}:`;
  const run = (script: string, keys: readonly string[], args: readonly (string | number)[]) =>
    redis.eval(script, keys.length, ...keys, ...args);
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('add up: each instance sends its counts, either one reads the sum', async () => {
    const now = () => START + 10_000;
    const one = createLiveCounters({ run, now, prefix });
    const two = createLiveCounters({ run, now, prefix });
    feed(one);
    feed(two);
    two.settled(9, 'gpt-4o', 1, 1, 0, 1);
    await one.flush();
    const window = await two.read(2, now());
    expect(minutesOf(window).map((minute) => [minute.requests, minute.tokens])).toEqual([
      [0, 0],
      [5, 662],
    ]);
    expect(minutesOf(window, 7)[1]?.requests).toBe(4);
    expect(channelsOf(window)).toEqual([
      { channel_id: 3, attempts: 6, errors: 2, error_rate: 1 / 3, first_byte_ms: 200 },
    ]);
    expect(modelsOf(window)[0]).toMatchObject({ prompt_tokens: 601, cached_tokens: 80 });
    expect(await redis.ttl(`${prefix}${Math.floor(now() / MINUTE)}`)).toBeGreaterThan(3600);
  });

  it('never fails a request when Redis is away: the counts are dropped and reported', async () => {
    const warned: unknown[] = [];
    const away = createLiveCounters({
      run: () => Promise.reject(new Error('connection refused')),
      warn: (error) => warned.push(error),
      prefix,
    });
    feed(away);
    await away.flush();
    expect(warned).toHaveLength(1);
  });
});
