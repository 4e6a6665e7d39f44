import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../lib/password.js';
import { apiClient } from '../test-support/api-client.js';
import { listenHandler } from '../test-support/listen.js';
import { startOpenAiDouble, type OpenAiDouble } from '../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../test-support/relay-fixture.js';

describe('channel operations: test, test all, balance, automatic disable and enable', () => {
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
  const db = () => fixture.test.sluice.database.db;
  const channelRow = (id: number) =>
    db().selectFrom('channels').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const options = () => fixture.test.sluice.services.options;

  it('tests one channel with the requested model and stores the response time', async () => {
    const id = await fixture.channel({
      name: 'test-one',
      base_url: upstream.url,
      models: 'gpt-4o,gpt-3.5-turbo',
    });
    const response = await fixture.root.get(`/api/channel/test/${id}?model=gpt-4o`);
    expect(response.body).toMatchObject({ success: true, message: '', model: 'gpt-4o' });
    expect(typeof response.body['time']).toBe('number');
    expect(upstream.requests.at(-1)?.json).toMatchObject({
      model: 'gpt-4o',
      max_tokens: 2,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const row = await channelRow(id);
    expect(row.test_time).toBeGreaterThan(0);
    expect(row.response_time).toBeGreaterThanOrEqual(0);
    await fixture.root.get(`/api/channel/test/${id}?model=not-served`);
    expect(upstream.requests.at(-1)?.json?.['model']).toBe('gpt-3.5-turbo');
  });

  it('answers time 0 and the upstream message on failure, never the channel key', async () => {
    const id = await fixture.channel({ name: 'test-fail', base_url: upstream.url, models: 'gpt-4o' });
    upstream.failNext(1, 401, 'Incorrect API key provided: sk-upstream-secret-key-000');
    const response = await fixture.root.get(`/api/channel/test/${id}`);
    expect(response.body).toMatchObject({ success: false, time: 0 });
    expect(response.text).not.toContain('sk-upstream-secret-key-000');
    expect((await channelRow(id)).response_time).toBe(0);
  });

  it('test all disables a failing enabled channel and re-enables only automatically disabled ones', async () => {
    await options().update('AutomaticDisableChannelEnabled', 'true');
    await options().update('AutomaticEnableChannelEnabled', 'true');
    const failing = await startOpenAiDouble();
    try {
      failing.failNext(1, 401, 'Incorrect API key provided');
      const broken = await fixture.channel({ name: 'broken', base_url: failing.url, models: 'gpt-4o' });
      const healthy = await fixture.channel({ name: 'healthy', base_url: upstream.url, models: 'gpt-4o' });
      const manual = await fixture.channel({ name: 'manual', base_url: upstream.url, models: 'gpt-4o' });
      await fixture.root.put('/api/channel/', { id: manual, status: 2 });
      const total = (await db().selectFrom('channels').select('id').execute()).length;

      expect((await fixture.root.get('/api/channel/test?scope=all')).body.success).toBe(true);
      await fixture.test.sluice.idle();
      expect((await fixture.root.get('/api/channel/test/status')).body.data).toMatchObject({
        running: false,
        scope: 'all',
        total,
        done: total,
      });
      expect((await channelRow(broken)).status).toBe(3);
      expect((await channelRow(healthy)).status).toBe(1);
      expect((await channelRow(manual)).status).toBe(2);

      // the failing upstream has recovered: only the automatically disabled channel comes back
      expect((await fixture.root.get('/api/channel/test?scope=disabled')).body.success).toBe(true);
      await fixture.test.sluice.idle();
      expect((await channelRow(broken)).status).toBe(1);
      expect((await channelRow(manual)).status).toBe(2);

      // While a run waits for its upstream, another is refused.
      let release = () => {};
      upstream.hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      try {
        expect((await fixture.root.get('/api/channel/test?scope=all')).body.success).toBe(true);
        expect((await fixture.root.get('/api/channel/test?scope=all')).body).toEqual({
          success: false,
          message: 'a channel test is already running',
        });
      } finally {
        upstream.hold = undefined;
        release();
      }
      await fixture.test.sluice.idle();
    } finally {
      await options().update('AutomaticEnableChannelEnabled', 'false');
      await failing.close();
    }
  });

  it('disables a channel automatically when the relay meets a 401, and routes around it', async () => {
    await options().update('AutomaticDisableChannelEnabled', 'true');
    const id = await fixture.channel({ name: 'auto', base_url: upstream.url, models: 'auto-model' });
    const user = await fixture.user();
    upstream.failNext(1, 401, 'Incorrect API key provided');
    await expect(
      user.sdk.chat.completions.create({ model: 'auto-model', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      status: 401,
    });
    await fixture.test.sluice.idle();
    expect((await channelRow(id)).status).toBe(3);
    const abilities = await db()
      .selectFrom('abilities')
      .select('enabled')
      .where('channel_id', '=', id)
      .execute();
    expect(abilities.every((row) => !row.enabled)).toBe(true);
    await expect(
      user.sdk.chat.completions.create({ model: 'auto-model', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({
      status: 503,
    });
    const notice = await db()
      .selectFrom('logs')
      .select('content')
      .where('type', '=', LOG_TYPE.system)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    expect(notice?.content).toContain(`(#${id}) was disabled automatically`);
  });

  it('reads an AI Proxy balance, and passes a refusal on without the key it quotes', async () => {
    const refuse = { value: false };
    const aiProxy = await listenHandler((request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const key = String(request.headers['api-key']);
      response.end(
        JSON.stringify(
          refuse.value
            ? { success: false, message: `invalid api-key ${key}` }
            : { success: true, data: { totalPoints: 12.5 } },
        ),
      );
    });
    try {
      const id = await fixture.channel({
        name: 'aiproxy',
        type: CHANNEL_TYPE.aiProxy,
        key: 'aiproxy-secret-key-42',
        base_url: aiProxy.url,
        models: 'gpt-4o',
      });
      expect((await fixture.root.get(`/api/channel/update_balance/${id}`)).body).toEqual({
        success: true,
        message: '',
        balance: 12.5,
      });
      refuse.value = true;
      const refused = await fixture.root.get(`/api/channel/update_balance/${id}`);
      expect(refused.body).toEqual({ success: false, message: 'invalid api-key [redacted]', balance: 0 });
    } finally {
      await aiProxy.close();
    }
  });

  it('reads an OpenAI channel balance from the dashboard billing endpoints at its base URL', async () => {
    const id = await fixture.channel({ name: 'balance', base_url: upstream.url, models: 'gpt-4o' });
    const response = await fixture.root.get(`/api/channel/update_balance/${id}/`);
    expect(response.body).toEqual({ success: true, message: '', balance: 87.655 });
    const row = await channelRow(id);
    expect(row.balance).toBe(87.655);
    expect(row.balance_updated_time).toBeGreaterThan(0);
    const azure = await fixture.channel({
      name: 'azure',
      type: CHANNEL_TYPE.azure,
      base_url: upstream.url,
      models: 'gpt-4o',
    });
    expect((await fixture.root.get(`/api/channel/update_balance/${azure}`)).body).toMatchObject({
      success: false,
      message: 'not implemented',
    });
  });

  it('serves the model catalogue to users and the model objects to admins', async () => {
    const catalogue = await fixture.root.get('/api/models');
    const data = catalogue.body.data as Record<string, string[]>;
    expect(data['1']).toContain('gpt-4o');
    expect(data['14']).toContain('claude-3-5-sonnet-20241022');
    expect(Object.keys(data)).toHaveLength(45);
    const objects = await fixture.root.get('/api/channel/models');
    expect(objects.body['object']).toBe('list');
    expect((objects.body.data as { id: string }[]).some((model) => model.id === 'gemini-1.5-pro')).toBe(true);
  });

  it('refuses these routes to anyone without the role', async () => {
    const password = await hashPassword('password123');
    await db()
      .insertInto('users')
      .values({
        username: 'plainuser',
        password,
        display_name: 'p',
        role: 1,
        status: 1,
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: 'default',
      })
      .execute();
    const plain = apiClient(fixture.test.sluice.app);
    await plain.login('plainuser', 'password123');
    for (const path of [
      '/api/channel/test/1',
      '/api/channel/test',
      '/api/channel/test/status',
      '/api/channel/update_balance/1',
      '/api/channel/update_balance',
      '/api/channel/models',
    ])
      expect((await plain.get(path)).body).toEqual({
        success: false,
        message: 'no permission: insufficient role',
      });
    expect((await plain.get('/api/models')).body.success).toBe(true);
    const anonymous = apiClient(fixture.test.sluice.app);
    for (const path of ['/api/channel/test/1', '/api/channel/models', '/api/models'])
      expect((await anonymous.get(path)).status).toBe(401);
  });
});

describe('channel operations: ENABLE_METRIC disables a channel whose success rate falls too low', () => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture('sqlite', {
      ENABLE_METRIC: 'true',
      METRIC_QUEUE_SIZE: '4',
      METRIC_SUCCESS_RATE_THRESHOLD: '0.8',
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  it('counts the relay’s successes and failures, and disables on the failure that tips the rate', async () => {
    const id = await fixture.channel({ name: 'flaky', base_url: upstream.url, models: 'flaky-model' });
    const user = await fixture.user();
    const chat = () =>
      user.sdk.chat.completions
        .create({ model: 'flaky-model', messages: [{ role: 'user', content: 'x' }] })
        .then(
          () => 200,
          (error: { status?: number }) => error.status ?? 0,
        );
    const status = async () =>
      (
        await fixture.test.sluice.database.db
          .selectFrom('channels')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).status;
    expect(await chat()).toBe(200);
    upstream.failNext(3, 500, 'The server had an error while processing your request.');
    expect(await chat()).toBe(500);
    expect(await chat()).toBe(500);
    await fixture.test.sluice.idle();
    expect(await status()).toBe(1);
    expect(await chat()).toBe(500);
    await fixture.test.sluice.idle();
    expect(await status()).toBe(3);
    const notice = await fixture.test.sluice.database.db
      .selectFrom('logs')
      .select('content')
      .where('type', '=', LOG_TYPE.system)
      .orderBy('id', 'desc')
      .executeTakeFirst();
    expect(notice?.content).toContain(
      `(#${id}) was disabled automatically: the success rate of its last 4 requests, 0.25, is below 0.8`,
    );
  });
});
