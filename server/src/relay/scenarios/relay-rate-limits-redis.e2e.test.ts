import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../../boot.js';
import { apiClient } from '../../test-support/api-client.js';
import { listenSluice, type Listening } from '../../test-support/listen.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { limitKeysOf } from '../limits/redis-limit-store.js';
import { startTcpProxy, type TcpProxy } from '../../test-support/tcp-proxy.js';
import { testDialects, testRedisUrl } from '../../test-support/test-databases.js';

const redisUrl = testRedisUrl();
const MODEL = 'gpt-4o';

const chat = (url: string, user: RelayUser) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hello!' }] }),
  });

/** The windows of a fresh database's key and user ids may hold an earlier run's requests: cleared. */
const clearWindows = async (user: RelayUser) => {
  const redis = new Redis(redisUrl ?? '');
  try {
    for (const subject of [`t:${user.tokenId}`, `u:${user.userId}`]) await redis.del(...limitKeysOf(subject));
  } finally {
    redis.disconnect();
  }
};

/** The relay limiter's store failures by outcome, as Prometheus reads them. */
const storeFailures = async (sluice: Sluice, outcome: 'open' | 'closed'): Promise<number> => {
  const { text } = await apiClient(sluice.app).get('/metrics');
  const line = new RegExp(
    `^sluice_relay_rate_limit_store_failures_total\\{outcome="${outcome}"\\} (\\d+)`,
    'm',
  );
  return Number(line.exec(text)?.[1] ?? '0');
};

describe.runIf(redisUrl !== undefined).each(testDialects())(
  'rate limits across two instances sharing Redis (%s)',
  (dialect) => {
    let fixture: RelayFixture;
    let upstream: OpenAiDouble;
    let second: Sluice;
    let secondServer: Listening;

    beforeAll(async () => {
      upstream = await startOpenAiDouble();
      fixture = await startRelayFixture(dialect, { REDIS_CONN_STRING: redisUrl ?? '' });
      second = await fixture.test.boot({ REDIS_CONN_STRING: redisUrl ?? '' });
      secondServer = await listenSluice(second);
      await fixture.channel({ name: 'shared', base_url: upstream.url, models: MODEL });
    });
    afterAll(async () => {
      await secondServer?.close();
      await fixture?.close();
      await upstream?.close();
    });

    it('admits exactly M of N parallel requests spread over both instances (RPM)', async () => {
      const user = await fixture.user({ token: { rpm_limit: 7 } });
      await clearWindows(user);
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, index) =>
          chat(index % 2 === 0 ? fixture.server.url : secondServer.url, user),
        ),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(7);
      expect(statuses.filter((status) => status === 429)).toHaveLength(17);
      await fixture.test.sluice.idle();
      await second.idle();
      const logs = await fixture.test.sluice.database.db
        .selectFrom('logs')
        .select('id')
        .where('user_id', '=', user.userId)
        .execute();
      expect(logs).toHaveLength(7);
    });

    it('admits exactly M requests in flight at once over both instances (concurrency)', async () => {
      const user = await fixture.user({ token: { concurrency_limit: 3 } });
      await clearWindows(user);
      let open: () => void = () => undefined;
      upstream.hold = new Promise<void>((resolve) => (open = resolve));
      const before = upstream.requests.length;
      const answers = Array.from({ length: 10 }, (_, index) =>
        chat(index % 2 === 0 ? fixture.server.url : secondServer.url, user),
      );
      await expect.poll(() => upstream.requests.length - before, { timeout: 5000 }).toBe(3);
      // The refused ones answer at once, while the admitted three wait on the upstream.
      const refused: number[] = [];
      for (const answer of answers) {
        const status = await Promise.race([
          answer.then((response) => response.status),
          new Promise((resolve) => setTimeout(() => resolve(0), 200)),
        ]);
        if (status === 429) refused.push(status);
      }
      expect(refused).toHaveLength(7);
      upstream.hold = undefined;
      open();
      const statuses = await Promise.all(answers.map(async (answer) => (await answer).status));
      expect(statuses.filter((status) => status === 200)).toHaveLength(3);
      // Every slot freed: three more fit again, on either instance.
      await expect.poll(async () => (await chat(secondServer.url, user)).status, { timeout: 5000 }).toBe(200);
    });
  },
);

describe.runIf(redisUrl !== undefined)('rate limits with Redis away', () => {
  let proxy: TcpProxy;
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;

  beforeAll(async () => {
    const url = new URL(redisUrl ?? '');
    proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture('sqlite', { REDIS_CONN_STRING: url.toString() });
    await fixture.channel({ name: 'shared', base_url: upstream.url, models: MODEL });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
    await proxy?.close();
  });

  it('lets limited requests through with a metric by default, and refuses them with 503 under RateLimitFailClosed', async () => {
    const sluice = fixture.test.sluice;
    const user = await fixture.user({ token: { rpm_limit: 1 } });
    const free = await fixture.user();
    await clearWindows(user);
    expect((await chat(fixture.server.url, user)).status).toBe(200);
    expect((await chat(fixture.server.url, user)).status).toBe(429);

    proxy.drop();
    try {
      // Open (the default): let through, unlimited, counted.
      const through = await chat(fixture.server.url, user);
      expect(through.status).toBe(200);
      expect(through.headers.get('x-ratelimit-limit-requests')).toBeNull();
      expect(await storeFailures(sluice, 'open')).toBeGreaterThanOrEqual(1);
    } finally {
      proxy.restore();
    }
    await expect
      .poll(async () => (await chat(fixture.server.url, user)).status, { timeout: 10_000 })
      .toBe(429);
    await sluice.services.options.update('RateLimitFailClosed', 'true');

    proxy.drop();
    try {
      const refused = await chat(fixture.server.url, user);
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
        'rate_limiter_unavailable',
      );
      expect(await storeFailures(sluice, 'closed')).toBeGreaterThanOrEqual(1);
      // A key without limits never asks the limiter's store.
      expect((await chat(fixture.server.url, free)).status).toBe(200);
    } finally {
      proxy.restore();
    }
  });
});
