import { randomInt } from 'node:crypto';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { liveDashboardSchema, userLiveDashboardSchema } from '@sluice/contract/schemas/live-dashboard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../../boot.js';
import { apiClient } from '../../test-support/api-client.js';
import { listenSluice, type Listening } from '../../test-support/listen.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';
import { chatBody, consumeLogs, relayPost } from '../../test-support/relay-helpers.js';
import { testDialects, testRedisUrl } from '../../test-support/test-databases.js';

const MODEL = 'gpt-4o';
const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe.each(testDialects())('the live dashboard after a burst of relayed requests on %s', (dialect) => {
  let fixture: RelayFixture;
  let double: OpenAiDouble;

  beforeAll(async () => {
    fixture = await startRelayFixture(dialect);
    double = await startOpenAiDouble();
    double.usage = { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 40 };
  });
  afterAll(async () => {
    await double?.close();
    await fixture?.close();
  });

  it('counts what the logs count: requests, tokens, cache hits, failed attempts, spend today', async () => {
    const channel = await fixture.channel({ name: 'live', base_url: double.url, models: MODEL });
    const idle = await fixture.channel({ name: 'idle', base_url: double.url, models: 'gpt-3.5-turbo' });
    expect(
      (await fixture.root.put('/api/channel/', { id: idle, status: CHANNEL_STATUS.manuallyDisabled })).body
        .success,
    ).toBe(true);
    const user = await fixture.user();
    double.failNext(1, 500);
    expect((await relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody(MODEL))).status).toBe(
      500,
    );
    for (let index = 0; index < 6; index += 1) {
      const stream = index % 2 === 1;
      const body = chatBody(MODEL, stream ? { stream, stream_options: { include_usage: true } } : {});
      expect((await relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', body)).status).toBe(200);
    }
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    expect(logs).toHaveLength(6);
    const tokens = sum(logs.map((row) => row.prompt_tokens + row.completion_tokens));

    const live = await fixture.root.get('/api/dashboard/live');
    expect(live.body.success).toBe(true);
    const gateway = liveDashboardSchema.parse(live.body.data);
    expect(gateway.minutes).toHaveLength(60);
    expect(sum(gateway.minutes.map((minute) => minute.requests))).toBe(logs.length);
    expect(sum(gateway.minutes.map((minute) => minute.tokens))).toBe(tokens);
    expect(gateway.rpm).toBeGreaterThan(0);
    const served = gateway.channels.find((row) => row.channel_id === channel);
    expect(served).toMatchObject({ attempts: 7, errors: 1 });
    expect(served?.error_rate).toBeCloseTo(1 / 7);
    expect(served?.first_byte_ms).toBeGreaterThanOrEqual(0);
    expect(gateway.models).toEqual([
      {
        model: MODEL,
        prompt_tokens: sum(logs.map((row) => row.prompt_tokens)),
        cached_tokens: 40 * logs.length,
        cache_hit_rate: 0.4,
      },
    ]);
    expect(gateway.channel_states).toContainEqual({
      id: idle,
      name: 'idle',
      state: 'disabled',
      cooled_until: 0,
    });
    expect(gateway.channel_states.some((row) => row.id === channel)).toBe(false);

    const own = apiClient(fixture.test.sluice.app);
    await own.login(logs[0]?.username ?? '', 'password123');
    const mine = await own.get('/api/user/dashboard/live');
    expect(mine.body.success).toBe(true);
    const self = userLiveDashboardSchema.parse(mine.body.data);
    expect(sum(self.minutes.map((minute) => minute.requests))).toBe(logs.length);
    expect(sum(self.minutes.map((minute) => minute.tokens))).toBe(tokens);
    expect(self.spent_today).toBe(sum(logs.map((row) => row.quota)));
    expect(self.spent_today).toBeGreaterThan(0);
    // one-api's own dashboard path still answers its rows.
    expect((await own.get('/api/user/dashboard')).body.success).toBe(true);
    // An administrator's view only: a common user is refused.
    expect((await own.get('/api/dashboard/live')).body.success).toBe(false);
  });
});

describe.runIf(testRedisUrl() !== undefined)('the live dashboard of two instances sharing Redis', () => {
  let fixture: RelayFixture;
  let second: Sluice;
  let secondServer: Listening;
  let double: OpenAiDouble;

  beforeAll(async () => {
    fixture = await startRelayFixture('sqlite', { REDIS_CONN_STRING: testRedisUrl() ?? '' });
    second = await fixture.test.boot({ REDIS_CONN_STRING: testRedisUrl() ?? '' });
    secondServer = await listenSluice(second);
    double = await startOpenAiDouble();
    double.usage = { prompt_tokens: 30, completion_tokens: 5 };
  });
  afterAll(async () => {
    await double?.close();
    await secondServer?.close();
    await second?.close();
    await fixture?.close();
  });

  it("adds up both instances' counts: a user's requests through either are read on either", async () => {
    await fixture.channel({ name: 'shared', base_url: double.url, models: MODEL });
    const made = await fixture.user();
    // An id of its own, so that no other suite sharing this Redis counts for the same user.
    const userId = 500_000 + randomInt(400_000);
    const db = fixture.test.sluice.database.db;
    await db.updateTable('users').set({ id: userId }).where('id', '=', made.userId).execute();
    await db.updateTable('tokens').set({ user_id: userId }).where('id', '=', made.tokenId).execute();
    const send = async (url: string) => {
      const answer = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${made.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(chatBody(MODEL)),
      });
      expect(answer.status, await answer.text()).toBe(200);
    };
    for (let index = 0; index < 3; index += 1) await send(fixture.server.url);
    for (let index = 0; index < 2; index += 1) await send(secondServer.url);
    await Promise.all([fixture.test.sluice.idle(), second.idle()]);
    const logs = await consumeLogs(db, userId);
    expect(logs).toHaveLength(5);
    for (const app of [fixture.test.sluice.app, second.app]) {
      const own = apiClient(app);
      await own.login(logs[0]?.username ?? '', 'password123');
      await expect
        .poll(async () => {
          const self = userLiveDashboardSchema.parse((await own.get('/api/user/dashboard/live')).body.data);
          return [sum(self.minutes.map((row) => row.requests)), sum(self.minutes.map((row) => row.tokens))];
        })
        .toEqual([5, sum(logs.map((row) => row.prompt_tokens + row.completion_tokens))]);
    }
  });
});
