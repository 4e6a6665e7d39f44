import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../../boot.js';
import { apiClient } from '../../test-support/api-client.js';
import { listenSluice, type Listening } from '../../test-support/listen.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { testRedisUrl } from '../../test-support/test-databases.js';

const redis = testRedisUrl();

/** Two instances on one database and one Redis: a console write on A changes what B relays at once. */
describe.skipIf(!redis)('relay across instances (Redis invalidation)', () => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  let second: Sluice;
  let secondServer: Listening;
  let user: RelayUser;
  let channelId: number;

  const chatOnSecond = (key: string) =>
    fetch(`${secondServer.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture('sqlite', { REDIS_CONN_STRING: redis ?? '' });
    second = await fixture.test.boot({ REDIS_CONN_STRING: redis ?? '' });
    secondServer = await listenSluice(second);
    channelId = await fixture.channel({ name: 'shared', base_url: upstream.url, models: 'gpt-4o' });
    user = await fixture.user();
  });
  afterAll(async () => {
    await secondServer?.close();
    await fixture?.close();
    await upstream?.close();
  });

  it('serves on B, stops when A disables the channel, and resumes when A enables it', async () => {
    expect((await chatOnSecond(user.key)).status).toBe(200);
    await fixture.root.put('/api/channel/', { id: channelId, status: 2 });
    await expect
      .poll(async () => (await chatOnSecond(user.key)).status, { timeout: 3000, interval: 50 })
      .toBe(503);
    await fixture.root.put('/api/channel/', { id: channelId, status: 1 });
    await expect
      .poll(async () => (await chatOnSecond(user.key)).status, { timeout: 3000, interval: 50 })
      .toBe(200);
  });

  it('refuses a key on B as soon as its owner disables it on A', async () => {
    expect((await chatOnSecond(user.key)).status).toBe(200);
    const owner = apiClient(fixture.test.sluice.app);
    await fixture.test.sluice.database.db
      .updateTable('users')
      .set({ access_token: 'owneraccesstoken000000000000001' })
      .where('id', '=', user.userId)
      .execute();
    const response = await owner.put(
      '/api/token/?status_only=true',
      { id: user.tokenId, status: 2 },
      { headers: { authorization: 'owneraccesstoken000000000000001' } },
    );
    expect(response.body.success).toBe(true);
    await expect
      .poll(async () => (await chatOnSecond(user.key)).status, { timeout: 3000, interval: 50 })
      .toBe(401);
  });

  it('admits a user on B as soon as an admin tops them up on A (the cached quota is dropped)', async () => {
    const poor = await fixture.user({ quota: 1 });
    const refused = await chatOnSecond(poor.key);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'insufficient_user_quota',
    );
    expect(
      (await fixture.root.post('/api/topup', { user_id: poor.userId, quota: 1_000_000 })).body.success,
    ).toBe(true);
    await expect
      .poll(async () => (await chatOnSecond(poor.key)).status, { timeout: 3000, interval: 50 })
      .toBe(200);
  });

  it('refuses a user on B as soon as an admin bans them on A', async () => {
    const banned = await fixture.user();
    expect((await chatOnSecond(banned.key)).status).toBe(200);
    const username = (
      await fixture.test.sluice.database.db
        .selectFrom('users')
        .select('username')
        .where('id', '=', banned.userId)
        .executeTakeFirstOrThrow()
    ).username;
    expect((await fixture.root.post('/api/user/manage', { username, action: 'disable' })).body.success).toBe(
      true,
    );
    await expect
      .poll(async () => (await chatOnSecond(banned.key)).status, { timeout: 3000, interval: 50 })
      .toBe(403);
  });
});
