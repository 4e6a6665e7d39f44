import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

describe('billing endpoints for OpenAI-style clients', () => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture('sqlite');
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  const get = (path: string, key: string) =>
    fetch(`${fixture.server.url}${path}`, { headers: { authorization: `Bearer sk-${key}` } }).then(
      async (response) => ({
        status: response.status,
        body: (await response.json()) as Record<string, unknown>,
      }),
    );

  it('reports a limited key in dollars on both paths', async () => {
    const user = await fixture.user({
      token: { unlimited_quota: false, remain_quota: 750_000, used_quota: 250_000 },
    });
    for (const prefix of ['/dashboard/billing', '/v1/dashboard/billing']) {
      const subscription = await get(`${prefix}/subscription`, user.key);
      expect(subscription.status).toBe(200);
      expect(subscription.body).toMatchObject({
        object: 'billing_subscription',
        hard_limit_usd: 2,
        soft_limit_usd: 2,
        access_until: 0,
      });
      expect((await get(`${prefix}/usage`, user.key)).body).toEqual({ object: 'list', total_usage: 50 });
    }
  });

  it('reports an unlimited key as 100000000, the user when token stats are off, and refuses a bad key', async () => {
    const user = await fixture.user({ quota: 1_500_000 });
    expect((await get('/v1/dashboard/billing/subscription', user.key)).body['hard_limit_usd']).toBe(
      100_000_000,
    );
    await fixture.test.sluice.services.options.update('DisplayTokenStatEnabled', 'false');
    try {
      expect((await get('/v1/dashboard/billing/subscription', user.key)).body['hard_limit_usd']).toBe(3);
    } finally {
      await fixture.test.sluice.services.options.update('DisplayTokenStatEnabled', 'true');
    }
    const refused = await get('/dashboard/billing/subscription', 'nope');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({
      error: { message: expect.stringContaining('invalid token') as unknown },
    });
  });
});
