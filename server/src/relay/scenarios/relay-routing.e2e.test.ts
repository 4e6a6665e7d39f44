import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../test-support/api-client.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import {
  channelUsedQuota,
  chatBody,
  consumeLogs,
  doublePool,
  gpt4oCost,
  relayPost,
  tokenCounters,
  userCounters,
} from '../../test-support/relay-helpers.js';

/** The OpenAI double reports 9 prompt and 12 completion tokens unless told otherwise. */
const COST = gpt4oCost(9, 12);

describe('relay routing: retries, priorities, weights, mapping, system prompt, channel suffix, key checks', () => {
  let fixture: RelayFixture;
  const doubles = doublePool();
  let groupCounter = 0;

  beforeAll(async () => {
    fixture = await startRelayFixture('sqlite');
  });
  afterEach(async () => {
    await fixture.test.sluice.services.options.update('RetryTimes', '0');
    await doubles.closeAll();
  });
  afterAll(async () => {
    await fixture?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  const idle = () => fixture.test.sluice.idle();
  const setRetries = (times: number) =>
    fixture.test.sluice.services.options.update('RetryTimes', String(times));
  /** Every test routes in a group of its own, so channels of other tests never interfere. */
  const freshGroup = () => {
    groupCounter += 1;
    return `route${groupCounter}`;
  };
  const chat = (user: RelayUser | string, body: unknown = chatBody('gpt-4o')) =>
    relayPost(fixture, typeof user === 'string' ? user : `sk-${user.key}`, '/v1/chat/completions', body);

  /** A user in `group` who has not paid anything yet. */
  const expectUntouched = async (user: RelayUser, quota: number) => {
    await idle();
    expect(await userCounters(db(), user.userId)).toMatchObject({ quota, used_quota: 0, request_count: 0 });
    expect(await consumeLogs(db(), user.userId)).toHaveLength(0);
  };

  /** Two channels for gpt-4o in a fresh group: priority 10 and priority 5, each with its own double. */
  const twoTiers = async () => {
    const group = freshGroup();
    const high = await doubles.start();
    const low = await doubles.start();
    const highId = await fixture.channel({
      name: 'high',
      base_url: high.url,
      models: 'gpt-4o',
      group,
      priority: 10,
    });
    const lowId = await fixture.channel({
      name: 'low',
      base_url: low.url,
      models: 'gpt-4o',
      group,
      priority: 5,
    });
    return { group, high, low, highId, lowId };
  };

  describe('retries', () => {
    it.each([500, 429, 502, 401, 404])(
      'an upstream %i on the priority-10 channel is retried on the priority-5 channel, billed once',
      async (status) => {
        await setRetries(2);
        const { group, high, low, highId, lowId } = await twoTiers();
        high.failNext(1, status, 'transient trouble');
        const user = await fixture.user({ quota: 1_000_000, group });
        const completion = await user.sdk.chat.completions.create({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'Hello!' }],
        });
        expect(completion.choices[0]?.message.content).toBe(low.reply);
        expect(high.requests).toHaveLength(1);
        expect(low.requests).toHaveLength(1);
        await idle();
        const logs = await consumeLogs(db(), user.userId);
        expect(logs).toHaveLength(1);
        expect(logs[0]).toMatchObject({ channel_id: lowId, quota: COST, model_name: 'gpt-4o' });
        expect(await userCounters(db(), user.userId)).toMatchObject({
          quota: 1_000_000 - COST,
          used_quota: COST,
          request_count: 1,
        });
        expect(await channelUsedQuota(db(), lowId)).toBe(COST);
        expect(await channelUsedQuota(db(), highId)).toBe(0);
      },
    );

    it('retries an answer that breaks off in the middle of its body on the next channel, billed once', async () => {
      await setRetries(1);
      const { group, high, low, lowId } = await twoTiers();
      high.breakNext(1);
      const user = await fixture.user({ quota: 1_000_000, group });
      const answer = await chat(user);
      expect(answer.status).toBe(200);
      expect(high.requests).toHaveLength(1);
      expect(low.requests).toHaveLength(1);
      await idle();
      const logs = await consumeLogs(db(), user.userId);
      expect(logs.map((log) => [log.channel_id, log.quota])).toEqual([[lowId, COST]]);
    });

    it('answers 502 with nothing billed when the only channel breaks off in the middle of its answer', async () => {
      await setRetries(0);
      const { group, high, low } = await twoTiers();
      high.breakNext(1);
      const user = await fixture.user({ quota: 1_000_000, group });
      const answer = await chat(user);
      expect(answer.status).toBe(502);
      expect(answer.json.error?.code).toBe('do_request_failed');
      expect(low.requests).toHaveLength(0);
      await expectUntouched(user, 1_000_000);
    });

    it('passes on the param of an OpenAI error body as it came', async () => {
      await setRetries(0);
      const { group, high } = await twoTiers();
      high.failNext(1, 400, "Invalid value for 'temperature': must be at most 2.");
      const user = await fixture.user({ quota: 1_000_000, group });
      const answer = await chat(user);
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ type: 'server_error', param: '' });
    });

    it('does not retry an upstream 400: one upstream saw it, the client gets 400 with its message', async () => {
      await setRetries(2);
      const { group, high, low } = await twoTiers();
      high.failNext(1, 400, "Invalid value for 'temperature': must be at most 2.");
      const user = await fixture.user({ quota: 1_000_000, group });
      const answer = await chat(user);
      expect(answer.status).toBe(400);
      expect(answer.json.error?.message).toContain("Invalid value for 'temperature': must be at most 2.");
      expect(high.requests).toHaveLength(1);
      expect(low.requests).toHaveLength(0);
      await expectUntouched(user, 1_000_000);
    });

    it('does not retry at all with RetryTimes=0', async () => {
      await setRetries(0);
      const { group, high, low } = await twoTiers();
      high.failNext(1, 500, 'the server had an error');
      const user = await fixture.user({ quota: 1_000_000, group });
      const answer = await chat(user);
      expect(answer.status).toBe(500);
      expect(answer.json.error?.message).toContain('the server had an error');
      expect(high.requests).toHaveLength(1);
      expect(low.requests).toHaveLength(0);
      await expectUntouched(user, 1_000_000);
    });

    it('never tries a failed channel twice for one request, whatever RetryTimes allows', async () => {
      await setRetries(5);
      const group = freshGroup();
      const tierA = await doubles.start();
      const tierB = await doubles.start();
      const lower = await doubles.start();
      for (const [name, double, priority] of [
        ['a', tierA, 10],
        ['b', tierB, 10],
        ['c', lower, 1],
      ] as const) {
        double.failNext(10, 503, 'overloaded');
        await fixture.channel({ name, base_url: double.url, models: 'gpt-4o', group, priority });
      }
      const user = await fixture.user({ quota: 1_000_000, group });
      const answer = await chat(user);
      expect(answer.status).toBe(503);
      expect(tierA.requests).toHaveLength(1);
      expect(tierB.requests).toHaveLength(1);
      expect(lower.requests).toHaveLength(1);

      const lonelyGroup = freshGroup();
      const lonely = await doubles.start();
      lonely.failNext(10, 500);
      await fixture.channel({ name: 'lonely', base_url: lonely.url, models: 'gpt-4o', group: lonelyGroup });
      const other = await fixture.user({ quota: 1_000_000, group: lonelyGroup });
      expect((await chat(other)).status).toBe(500);
      expect(lonely.requests).toHaveLength(1);
      await expectUntouched(user, 1_000_000);
      await expectUntouched(other, 1_000_000);
    });

    it('answers the status of the last attempt when every attempt fails, and bills nothing', async () => {
      await setRetries(2);
      const { group, high, low } = await twoTiers();
      high.failNext(1, 500, 'first failure');
      low.failNext(1, 502, 'last failure');
      // 50 000 is below 100 × the reservation, so the request reserves quota that must come back.
      const user = await fixture.user({ quota: 50_000, group });
      const answer = await chat(user);
      expect(answer.status).toBe(502);
      expect(answer.json.error?.message).toContain('last failure');
      expect(high.requests).toHaveLength(1);
      expect(low.requests).toHaveLength(1);
      await expectUntouched(user, 50_000);
      expect(await tokenCounters(db(), user.tokenId)).toMatchObject({ used_quota: 0 });
    });

    it('replaces the message of a final 429 with one-api’s saturation message', async () => {
      const { group, high, low } = await twoTiers();
      high.failNext(1, 429, 'Rate limit reached for gpt-4o');
      const user = await fixture.user({ quota: 1_000_000, group });
      const answer = await chat(user);
      expect(answer.status).toBe(429);
      expect(answer.json.error?.message).toContain(
        'upstream load of the current group is saturated, retry later',
      );
      expect(low.requests).toHaveLength(0);
      await expectUntouched(user, 1_000_000);
    });
  });

  describe('choice of channel', () => {
    it('sends about 90% of the traffic to the channel of weight 9 against weight 1 (same priority)', async () => {
      const group = freshGroup();
      const light = await doubles.start();
      const heavy = await doubles.start();
      await fixture.channel({ name: 'light', base_url: light.url, models: 'gpt-4o', group, weight: 1 });
      await fixture.channel({ name: 'heavy', base_url: heavy.url, models: 'gpt-4o', group, weight: 9 });
      const user = await fixture.user({ group });
      for (let batch = 0; batch < 10; batch += 1) {
        const answers = await Promise.all(Array.from({ length: 20 }, () => chat(user)));
        expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 200));
      }
      expect(light.requests.length + heavy.requests.length).toBe(200);
      // Binomial(200, 0.9): mean 180, σ ≈ 4.2. Uniform choice (weights ignored) would give ≈ 100.
      expect(heavy.requests.length).toBeGreaterThanOrEqual(150);
      expect(heavy.requests.length).toBeLessThanOrEqual(194);
    });

    it('always uses the highest priority tier while it succeeds, whatever the weights below', async () => {
      const group = freshGroup();
      const topA = await doubles.start();
      const topB = await doubles.start();
      const below = await doubles.start();
      await fixture.channel({ name: 'top-a', base_url: topA.url, models: 'gpt-4o', group, priority: 10 });
      await fixture.channel({ name: 'top-b', base_url: topB.url, models: 'gpt-4o', group, priority: 10 });
      await fixture.channel({
        name: 'below',
        base_url: below.url,
        models: 'gpt-4o',
        group,
        priority: 9,
        weight: 1000,
      });
      const user = await fixture.user({ group });
      const answers = await Promise.all(Array.from({ length: 40 }, () => chat(user)));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect(below.requests).toHaveLength(0);
      expect(topA.requests.length + topB.requests.length).toBe(40);
      // Equal weights share the top tier: both channels serve (P(one gets none) = 2 × 2⁻⁴⁰).
      expect(topA.requests.length).toBeGreaterThan(0);
      expect(topB.requests.length).toBeGreaterThan(0);
    });
  });

  describe('channel settings applied to the request', () => {
    it('maps a model: the upstream gets gpt-4o, the log names gpt-4o and bills gpt-4o’s ratio', async () => {
      const group = freshGroup();
      const upstream = await doubles.start();
      await fixture.channel({
        name: 'alias',
        base_url: upstream.url,
        models: 'gpt-alias',
        model_mapping: '{"gpt-alias":"gpt-4o"}',
        group,
      });
      const user = await fixture.user({ quota: 1_000_000, group });
      const completion = await user.sdk.chat.completions.create({
        model: 'gpt-alias',
        messages: [{ role: 'user', content: 'Hello!' }],
      });
      expect(completion.choices[0]?.message.content).toBe(upstream.reply);
      const stream = await user.sdk.chat.completions.create({
        model: 'gpt-alias',
        stream: true,
        messages: [{ role: 'user', content: 'Hello!' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(upstream.reply);
      expect(upstream.requests.map((request) => request.json?.['model'])).toEqual(['gpt-4o', 'gpt-4o']);
      await idle();
      const logs = await consumeLogs(db(), user.userId);
      // An unknown model (gpt-alias) would cost (9 + 12) × 30 = 630.
      expect(logs.map((log) => [log.model_name, log.quota])).toEqual([
        ['gpt-4o', COST],
        ['gpt-4o', COST],
      ]);
      expect((await userCounters(db(), user.userId)).quota).toBe(1_000_000 - 2 * COST);
    });

    it('puts the channel system prompt first: replaces a system message, prepends otherwise', async () => {
      const group = freshGroup();
      const upstream = await doubles.start();
      const plain = await doubles.start();
      const prompt = 'You are a terse pirate.';
      await fixture.channel({
        name: 'pirate',
        base_url: upstream.url,
        models: 'gpt-4o',
        system_prompt: prompt,
        group,
      });
      await fixture.channel({ name: 'plain', base_url: plain.url, models: 'gpt-4o-mini', group });
      const user = await fixture.user({ group });
      const replaced = await chat(user, {
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'Be very polite.' },
          { role: 'user', content: 'hi' },
        ],
      });
      expect(replaced.status).toBe(200);
      const prepended = await chat(user, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
      expect(prepended.status).toBe(200);
      const streamed = await chat(user, {
        model: 'gpt-4o',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(streamed.status).toBe(200);
      expect(streamed.text).toContain('data: [DONE]');
      const untouched = await chat(user, {
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: 'Be very polite.' },
          { role: 'user', content: 'hi' },
        ],
      });
      expect(untouched.status).toBe(200);

      expect(upstream.requests.map((request) => request.json?.['messages'])).toEqual([
        [
          { role: 'system', content: prompt },
          { role: 'user', content: 'hi' },
        ],
        [
          { role: 'system', content: prompt },
          { role: 'user', content: 'hi' },
        ],
        [
          { role: 'system', content: prompt },
          { role: 'user', content: 'hi' },
        ],
      ]);
      expect(plain.requests[0]?.json?.['messages']).toEqual([
        { role: 'system', content: 'Be very polite.' },
        { role: 'user', content: 'hi' },
      ]);
      await idle();
      const logs = await consumeLogs(db(), user.userId);
      expect(logs.map((log) => [log.model_name, log.system_prompt_reset])).toEqual([
        ['gpt-4o', true],
        ['gpt-4o', true],
        ['gpt-4o', true],
        ['gpt-4o-mini', false],
      ]);
    });
  });

  describe('the admin-only sk-<key>-<channelId> suffix', () => {
    const adminUser = async (group: string) => {
      const user = await fixture.user({ group });
      await db().updateTable('users').set({ role: 10 }).where('id', '=', user.userId).execute();
      return user;
    };

    it('sends an admin’s request to exactly that channel, skipping priority, model and retries', async () => {
      await setRetries(2);
      const { group, high, low, lowId } = await twoTiers();
      const admin = await adminUser(group);
      const first = await chat(`sk-${admin.key}-${lowId}`);
      expect(first.status).toBe(200);
      expect(high.requests).toHaveLength(0);
      expect(low.requests).toHaveLength(1);
      // one-api skips the group/model checks for a named channel
      const otherModel = await chat(`sk-${admin.key}-${lowId}`, chatBody('gpt-3.5-turbo'));
      expect(otherModel.status).toBe(200);
      expect(low.requests.at(-1)?.json?.['model']).toBe('gpt-3.5-turbo');
      // a named channel is never retried elsewhere
      low.failNext(1, 500, 'named channel down');
      const failed = await chat(`sk-${admin.key}-${lowId}`);
      expect(failed.status).toBe(500);
      expect(high.requests).toHaveLength(0);
      expect(low.requests).toHaveLength(3);
      await idle();
      const logs = await consumeLogs(db(), admin.userId);
      expect(logs.map((log) => log.channel_id)).toEqual([lowId, lowId]);
    });

    it('refuses the suffix to a common user with 403', async () => {
      const { group, high, low, lowId } = await twoTiers();
      const user = await fixture.user({ quota: 1_000_000, group });
      const answer = await chat(`sk-${user.key}-${lowId}`);
      expect(answer.status).toBe(403);
      expect(answer.json.error?.message).toContain('common users cannot specify a channel');
      expect(high.requests.length + low.requests.length).toBe(0);
      await expectUntouched(user, 1_000_000);
    });

    it('refuses a disabled channel with 403 and an unknown one with 400', async () => {
      const { group, high, low, lowId } = await twoTiers();
      const disabled = await fixture.root.put('/api/channel/', { id: lowId, status: 2 });
      expect(disabled.body.success).toBe(true);
      const admin = await adminUser(group);
      const answer = await chat(`sk-${admin.key}-${lowId}`);
      expect(answer.status).toBe(403);
      expect(answer.json.error?.message).toContain('this channel is disabled');
      const unknown = await chat(`sk-${admin.key}-987654`);
      expect(unknown.status).toBe(400);
      expect(unknown.json.error?.message).toContain('invalid channel id');
      expect(high.requests.length + low.requests.length).toBe(0);
    });
  });

  describe('console changes take effect on the very next request', () => {
    it('a channel disabled through PUT /api/channel/ receives no more traffic, and serves again once enabled', async () => {
      const { group, high, low, highId } = await twoTiers();
      const user = await fixture.user({ group });
      expect((await chat(user)).status).toBe(200);
      expect([high.requests.length, low.requests.length]).toEqual([1, 0]);
      expect((await fixture.root.put('/api/channel/', { id: highId, status: 2 })).body.success).toBe(true);
      expect((await chat(user)).status).toBe(200);
      expect([high.requests.length, low.requests.length]).toEqual([1, 1]);
      expect((await fixture.root.put('/api/channel/', { id: highId, status: 1 })).body.success).toBe(true);
      expect((await chat(user)).status).toBe(200);
      expect([high.requests.length, low.requests.length]).toEqual([2, 1]);
    });

    it('a channel or a model added through the API serves at once', async () => {
      const group = freshGroup();
      const upstream = await doubles.start();
      const user = await fixture.user({ group });
      const before = await chat(user, chatBody('fresh-model'));
      expect(before.status).toBe(503);
      expect(before.json.error?.message).toContain(
        `no available channel for model fresh-model under group ${group}`,
      );
      const id = await fixture.channel({
        name: 'fresh',
        base_url: upstream.url,
        models: 'fresh-model',
        group,
      });
      expect((await chat(user, chatBody('fresh-model'))).status).toBe(200);
      expect((await chat(user, chatBody('fresh-model-2'))).status).toBe(503);
      const updated = await fixture.root.put('/api/channel/', { id, models: 'fresh-model,fresh-model-2' });
      expect(updated.body.success).toBe(true);
      expect((await chat(user, chatBody('fresh-model-2'))).status).toBe(200);
      expect(upstream.requests.map((request) => request.json?.['model'])).toEqual([
        'fresh-model',
        'fresh-model-2',
      ]);
    });
  });

  describe('key checks', () => {
    let group: string;
    // This block's double outlives the per-test cleanup of the pool.
    let upstream: OpenAiDouble;
    const upstreamRequests = () => upstream.requests.length;
    beforeAll(async () => {
      group = freshGroup();
      upstream = await startOpenAiDouble();
      await fixture.channel({ name: 'keys', base_url: upstream.url, models: 'gpt-4o,gpt-3.5-turbo', group });
    });
    afterAll(async () => {
      await upstream?.close();
    });

    it('refuses a disabled key with 401', async () => {
      const user = await fixture.user({ group });
      await db().updateTable('tokens').set({ status: 2 }).where('id', '=', user.tokenId).execute();
      const answer = await chat(user);
      expect(answer.status).toBe(401);
      expect(answer.json.error?.message).toContain('token status unavailable');
    });

    it('refuses an expired key with 401 and marks it expired (status 3)', async () => {
      const user = await fixture.user({ group, token: { expired_time: Math.floor(Date.now() / 1000) - 60 } });
      const answer = await chat(user);
      expect(answer.status).toBe(401);
      expect(answer.json.error?.message).toContain('token expired');
      expect((await tokenCounters(db(), user.tokenId)).status).toBe(3);
      const again = await chat(user);
      expect(again.status).toBe(401);
      expect(again.json.error?.message).toContain('token expired');
    });

    it('refuses a used-up limited key with 401 and marks it exhausted (status 4)', async () => {
      const user = await fixture.user({ group, token: { unlimited_quota: false, remain_quota: 0 } });
      const answer = await chat(user);
      expect(answer.status).toBe(401);
      expect(answer.json.error?.message).toContain('quota exhausted');
      expect((await tokenCounters(db(), user.tokenId)).status).toBe(4);
    });

    it('refuses a key that expires while it is in memory, and marks it expired (status 3)', async () => {
      const expiresAt = Math.floor(Date.now() / 1000) + 1;
      const user = await fixture.user({ group, token: { expired_time: expiresAt } });
      expect((await chat(user)).status).toBe(200);
      while (Math.floor(Date.now() / 1000) <= expiresAt)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const answer = await chat(user);
      expect(answer.status).toBe(401);
      expect(answer.json.error?.message).toContain('token expired');
      expect((await tokenCounters(db(), user.tokenId)).status).toBe(3);
    });

    it('refuses a model outside the key’s allow-list with 403', async () => {
      const user = await fixture.user({ group, token: { models: 'gpt-3.5-turbo' } });
      const before = upstreamRequests();
      const refused = await chat(user, chatBody('gpt-4o'));
      expect(refused.status).toBe(403);
      expect(refused.json.error?.message).toContain('this token may not use model gpt-4o');
      expect(upstreamRequests()).toBe(before);
      expect((await chat(user, chatBody('gpt-3.5-turbo'))).status).toBe(200);
    });

    it('refuses a client outside the key’s subnets with 403 (the socket address is 127.0.0.1)', async () => {
      const outside = await fixture.user({ group, token: { subnet: '10.0.0.0/8,192.168.0.0/16' } });
      // Twice: the second time the key and its user are answered from memory.
      for (let round = 0; round < 2; round += 1) {
        const refused = await chat(outside);
        expect(refused.status).toBe(403);
        expect(refused.json.error?.message).toContain(
          'this token may only be used from subnets 10.0.0.0/8,192.168.0.0/16, current ip 127.0.0.1',
        );
      }
      const inside = await fixture.user({ group, token: { subnet: '10.0.0.0/8,127.0.0.0/8' } });
      expect((await chat(inside)).status).toBe(200);
    });

    it('refuses a key of a user banned through the console with 403, from the next request on', async () => {
      const user = await fixture.user({ group });
      expect((await chat(user)).status).toBe(200);
      const { username } = await userCounters(db(), user.userId);
      const banned = await fixture.root.post('/api/user/manage', { username, action: 'disable' });
      expect(banned.body.success).toBe(true);
      const answer = await chat(user);
      expect(answer.status).toBe(403);
      expect(answer.json.error?.message).toContain('user is banned');
    });

    it('refuses the keys of a user who deleted their own account, from the next request on', async () => {
      const user = await fixture.user({ group });
      const { username } = await userCounters(db(), user.userId);
      const owner = apiClient(fixture.test.sluice.app);
      await owner.login(username, 'password123');
      expect((await chat(user)).status).toBe(200);
      expect((await owner.delete('/api/user/self')).body.success).toBe(true);
      const answer = await chat(user);
      expect(answer.status).toBe(403);
      expect(answer.json.error?.message).toContain('user is banned');
    });

    it('writes the new name into the next log row once a user renamed themselves', async () => {
      const user = await fixture.user({ group });
      const { username } = await userCounters(db(), user.userId);
      const owner = apiClient(fixture.test.sluice.app);
      await owner.login(username, 'password123');
      expect((await chat(user)).status).toBe(200);
      const renamed = `${username.slice(0, 8)}new`;
      expect((await owner.put('/api/user/self', { username: renamed })).body.success).toBe(true);
      expect((await chat(user)).status).toBe(200);
      await idle();
      const logs = await consumeLogs(db(), user.userId);
      expect(logs.map((log) => log.username).sort()).toEqual([username, renamed].sort());
    });

    it('applies a status change made through PUT /api/token/?status_only=true on the next request', async () => {
      const user = await fixture.user({ group });
      const { username } = await userCounters(db(), user.userId);
      const owner = apiClient(fixture.test.sluice.app);
      await owner.login(username, 'password123');
      expect((await chat(user)).status).toBe(200);
      const off = await owner.put('/api/token/?status_only=true', { id: user.tokenId, status: 2 });
      expect(off.body.success).toBe(true);
      const refused = await chat(user);
      expect(refused.status).toBe(401);
      expect(refused.json.error?.message).toContain('token status unavailable');
      const on = await owner.put('/api/token/?status_only=true', { id: user.tokenId, status: 1 });
      expect(on.body.success).toBe(true);
      expect((await chat(user)).status).toBe(200);
    });
  });
  describe('regression: a limited key is checked against its current remain_quota, never a cached one', () => {
    // relay-index.ts caches every key's row (remain_quota included) until a console change; billing
    // never drops it (forgetToken is never called), so a spent key still looks full to key-auth.ts.
    it('refuses a limited key with 401 once its remain_quota is spent, and marks it exhausted', async () => {
      const group = freshGroup();
      const upstream = await doubles.start();
      await fixture.channel({ name: 'spend', base_url: upstream.url, models: 'gpt-4o', group });
      // remain 200 000 > 100 × the reservation (≈ 1 275): the first request is "trusted", and its
      // real cost (≈ 1 000 000) overdraws the key, as one-api allows for a trusted request.
      const user = await fixture.user({
        group,
        quota: 100_000_000,
        token: { unlimited_quota: false, remain_quota: 200_000 },
      });
      upstream.usage = { prompt_tokens: 9, completion_tokens: 100_000 };
      expect((await chat(user)).status).toBe(200);
      await idle();
      expect((await tokenCounters(db(), user.tokenId)).remain_quota).toBe(200_000 - gpt4oCost(9, 100_000));
      const next = await chat(user);
      expect(next.status).toBe(401);
      expect(next.json.error?.message).toContain('quota exhausted');
      expect(upstream.requests).toHaveLength(1);
      expect((await tokenCounters(db(), user.tokenId)).status).toBe(4);
    });
  });
});
