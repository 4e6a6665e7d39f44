import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../test-support/api-client.js';
import { listenSluice, type Listening } from '../test-support/listen.js';
import { startTcpProxy, type TcpProxy } from '../test-support/tcp-proxy.js';
import { testRedisUrl } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const redisUrl = testRedisUrl();

/** The limiter's fail-open counter, as Prometheus reads it. */
const failedOpen = async (test: TestSluice): Promise<number> => {
  const { text } = await apiClient(test.sluice.app).get('/metrics');
  return Number(/^sluice_rate_limit_failed_open_total (\d+)/m.exec(text)?.[1] ?? 'NaN');
};

describe.runIf(redisUrl !== undefined)('Redis going away', () => {
  let proxy: TcpProxy;
  let test: TestSluice;
  let server: Listening;
  const client = () => apiClient(test.sluice.app);

  beforeAll(async () => {
    const url = new URL(redisUrl ?? '');
    proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    // Limits low enough to be real, high enough never to trip here: every /api request asks Redis.
    test = await startTestSluice('sqlite', {
      REDIS_CONN_STRING: url.toString(),
      GLOBAL_API_RATE_LIMIT: '1000',
      CRITICAL_RATE_LIMIT: '1000',
    });
    server = await listenSluice(test.sluice);
  });
  afterAll(async () => {
    await server?.close();
    await test?.close();
    await proxy?.close();
  });

  it('keeps /api and the relay answering, the limiter failing open with a metric, and limits again on return', async () => {
    expect((await client().get('/api/status')).status).toBe(200);
    expect(await failedOpen(test)).toBe(0);
    proxy.drop();
    try {
      const status = await client().get('/api/status');
      expect(status.status).toBe(200);
      expect(status.body.success).toBe(true);
      const login = await client().post('/api/user/login', { username: 'root', password: '123456' });
      expect(login.status).toBe(200);
      expect(login.body.success).toBe(true);
      const relayed = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: 'Bearer sk-unknown-key-000000000000000000000000000',
          'content-type': 'application/json',
        },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(relayed.status).toBe(401);
      expect(await failedOpen(test)).toBeGreaterThanOrEqual(3);
    } finally {
      proxy.restore();
    }
    // Back: the limiter asks Redis again (ioredis reconnects by itself) and stops failing open.
    const deadline = Date.now() + 10_000;
    let settled = false;
    while (!settled && Date.now() < deadline) {
      const before = await failedOpen(test);
      await client().get('/api/status');
      settled = (await failedOpen(test)) === before;
      if (!settled) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(settled).toBe(true);
  });
});
