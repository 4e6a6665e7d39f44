import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../../boot.js';
import { apiClient } from '../../test-support/api-client.js';
import { listenSluice, type Listening } from '../../test-support/listen.js';
import type { OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { doublePool } from '../../test-support/relay-helpers.js';
import { startTcpProxy, type TcpProxy } from '../../test-support/tcp-proxy.js';
import { testRedisUrl } from '../../test-support/test-databases.js';

const MODEL = 'gpt-4o';
const redisUrl = testRedisUrl();

/** Turn `turn` of a conversation: its system prompt and first question, then every turn since. */
const turnBody = (topic: string, turn: number) => {
  const messages: { role: string; content: string }[] = [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: `Let us talk about ${topic}.` },
  ];
  for (let index = 1; index < turn; index += 1)
    messages.push(
      { role: 'assistant', content: `Answer ${index}.` },
      { role: 'user', content: `Question ${index + 1}?` },
    );
  return { model: MODEL, messages };
};

const post = async (
  url: string,
  user: RelayUser,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
) => {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
};

/** How many requests each double has served. */
const counts = (upstreams: readonly OpenAiDouble[]) => upstreams.map((double) => double.requests.length);

describe('conversation affinity: a conversation stays on its channel while it answers', () => {
  let fixture: RelayFixture;
  const doubles = doublePool();
  let groups = 0;

  beforeAll(async () => {
    fixture = await startRelayFixture('sqlite');
    const options = fixture.test.sluice.services.options;
    await options.update('ConversationAffinityEnabled', 'true');
    await options.update('RetryTimes', '2');
  });
  afterEach(() => doubles.closeAll());
  afterAll(async () => {
    await fixture?.close();
  });

  /** Three channels on three doubles in a fresh group, and a user of it. */
  const threeChannels = async () => {
    groups += 1;
    const group = `affinity${groups}`;
    const upstreams = [await doubles.start(), await doubles.start(), await doubles.start()];
    const ids: number[] = [];
    for (const [index, double] of upstreams.entries())
      ids.push(await fixture.channel({ name: `a${index}`, base_url: double.url, models: MODEL, group }));
    return { upstreams, ids, user: await fixture.user({ group }) };
  };
  const chat = (user: RelayUser, body: unknown, headers?: Record<string, string>) =>
    post(fixture.server.url, user, '/v1/chat/completions', body, headers);

  it('keeps 20 turns on one channel of 3, moves when it fails, and stays where it moved', async () => {
    const { upstreams, user } = await threeChannels();
    for (let turn = 1; turn <= 20; turn += 1) expect(await chat(user, turnBody('rivers', turn))).toBe(200);
    const served = counts(upstreams);
    expect([...served].sort((a, b) => a - b)).toEqual([0, 0, 20]);
    const pinned = served.indexOf(20);
    (upstreams[pinned] as OpenAiDouble).failNext(100, 500, 'the pinned channel is down');
    for (let turn = 21; turn <= 30; turn += 1) expect(await chat(user, turnBody('rivers', turn))).toBe(200);
    const after = counts(upstreams);
    // The failed channel was tried once (turn 21 failed over), then the conversation stayed on the new one.
    expect(after[pinned]).toBe(21);
    expect([...after.filter((_, index) => index !== pinned)].sort((a, b) => a - b)).toEqual([0, 10]);
  });

  it('names a conversation by prompt_cache_key, x-session-id and Anthropic metadata.user_id', async () => {
    const { upstreams, user } = await threeChannels();
    // Each turn's opening differs: only the name given keeps them together.
    for (let turn = 1; turn <= 10; turn += 1)
      expect(await chat(user, { ...turnBody(`cached ${turn}`, 1), prompt_cache_key: 'session-a' })).toBe(200);
    expect([...counts(upstreams)].sort((a, b) => a - b)).toEqual([0, 0, 10]);
    const before = counts(upstreams);
    for (let turn = 1; turn <= 10; turn += 1)
      expect(await chat(user, turnBody(`header ${turn}`, 1), { 'x-session-id': 'session-b' })).toBe(200);
    const moved = counts(upstreams).map((count, index) => count - (before[index] ?? 0));
    expect([...moved].sort((a, b) => a - b)).toEqual([0, 0, 10]);
    const third = counts(upstreams);
    for (let turn = 1; turn <= 10; turn += 1) {
      const status = await post(fixture.server.url, user, '/v1/messages', {
        model: MODEL,
        max_tokens: 64,
        metadata: { user_id: 'user_abc_account__session_42' },
        messages: [{ role: 'user', content: `Anthropic turn ${turn}` }],
      });
      expect(status).toBe(200);
    }
    const anthropic = counts(upstreams).map((count, index) => count - (third[index] ?? 0));
    expect([...anthropic].sort((a, b) => a - b)).toEqual([0, 0, 10]);
  });

  it('keeps a conversation on one key of a channel of several, which otherwise take turns', async () => {
    groups += 1;
    const group = `affinity${groups}`;
    const upstream = await doubles.start();
    const id = await fixture.channel({
      name: 'keys',
      base_url: upstream.url,
      models: MODEL,
      group,
    });
    // A POST makes a channel per line (one-api's batch); a PUT gives one channel several keys.
    const updated = await fixture.root.put('/api/channel/', { id, key: 'sk-one\nsk-two\nsk-three' });
    expect(updated.body.success).toBe(true);
    const user = await fixture.user({ group });
    const keysUsed = () => new Set(upstream.requests.map((request) => request.headers.authorization));
    for (let turn = 1; turn <= 9; turn += 1) expect(await chat(user, turnBody('keys', turn))).toBe(200);
    expect(keysUsed().size).toBe(1);
    // Other conversations take the keys in turn.
    for (let other = 1; other <= 3; other += 1)
      expect(await chat(user, turnBody(`other ${other}`, 1))).toBe(200);
    expect(keysUsed().size).toBe(3);
    // One channel: it served all 12.
    expect(upstream.requests).toHaveLength(12);
  });

  it('exports the cache-hit rate per channel, key and model in /metrics', async () => {
    const { upstreams, ids, user } = await threeChannels();
    for (const double of upstreams)
      double.usage = { prompt_tokens: 1000, completion_tokens: 10, cached_tokens: 900 };
    for (let turn = 1; turn <= 4; turn += 1) expect(await chat(user, turnBody('metrics', turn))).toBe(200);
    const channel = ids[counts(upstreams).indexOf(4)];
    const { text } = await apiClient(fixture.test.sluice.app).get('/metrics');
    const labels = `channel="${channel}",key="",model="${MODEL}"`;
    expect(text).toContain(`sluice_relay_prompt_tokens_total{${labels}} 4000`);
    expect(text).toContain(`sluice_relay_cached_prompt_tokens_total{${labels}} 3600`);
    expect(text).toContain(`sluice_relay_cache_hit_ratio{${labels}} 0.9`);
  });
});

describe.runIf(redisUrl !== undefined)('conversation affinity across two instances sharing Redis', () => {
  let fixture: RelayFixture;
  let second: Sluice;
  let secondServer: Listening;
  const doubles = doublePool();

  beforeAll(async () => {
    fixture = await startRelayFixture('sqlite', { REDIS_CONN_STRING: redisUrl ?? '' });
    const options = fixture.test.sluice.services.options;
    await options.update('ConversationAffinityEnabled', 'true');
    second = await fixture.test.boot({ REDIS_CONN_STRING: redisUrl ?? '' });
    secondServer = await listenSluice(second);
  });
  afterAll(async () => {
    await secondServer?.close();
    await doubles.closeAll();
    await fixture?.close();
  });

  it('sends the turns of one conversation to the same channel from either instance', async () => {
    const upstreams = [await doubles.start(), await doubles.start(), await doubles.start()];
    for (const [index, double] of upstreams.entries())
      await fixture.channel({ name: `r${index}`, base_url: double.url, models: MODEL, group: 'shared' });
    const user = await fixture.user({ group: 'shared' });
    // A fresh conversation name: a pin of an earlier run (the same key id in a fresh database) is not found.
    const topic = `oceans ${Date.now()}`;
    for (let turn = 1; turn <= 20; turn += 1) {
      const url = turn % 2 === 0 ? secondServer.url : fixture.server.url;
      expect(await post(url, user, '/v1/chat/completions', turnBody(topic, turn))).toBe(200);
    }
    expect([...counts(upstreams)].sort((a, b) => a - b)).toEqual([0, 0, 20]);
    const redis = new Redis(redisUrl ?? '');
    try {
      expect((await redis.keys('sluice:affinity:*')).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  });
});

describe.runIf(redisUrl !== undefined)('conversation affinity with Redis away', () => {
  let proxy: TcpProxy;
  let fixture: RelayFixture;
  const doubles = doublePool();

  beforeAll(async () => {
    const url = new URL(redisUrl ?? '');
    proxy = await startTcpProxy(url.hostname, Number(url.port || 6379));
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    fixture = await startRelayFixture('sqlite', { REDIS_CONN_STRING: url.toString() });
    await fixture.test.sluice.services.options.update('ConversationAffinityEnabled', 'true');
  });
  afterAll(async () => {
    await fixture?.close();
    await doubles.closeAll();
    await proxy?.close();
  });

  it('answers every turn and keeps the conversation on its channel from memory', async () => {
    const upstreams = [await doubles.start(), await doubles.start(), await doubles.start()];
    for (const [index, double] of upstreams.entries())
      await fixture.channel({ name: `o${index}`, base_url: double.url, models: MODEL, group: 'outage' });
    const user = await fixture.user({ group: 'outage' });
    const topic = `deserts ${Date.now()}`;
    for (let turn = 1; turn <= 5; turn += 1)
      expect(await post(fixture.server.url, user, '/v1/chat/completions', turnBody(topic, turn))).toBe(200);
    proxy.drop();
    try {
      for (let turn = 6; turn <= 10; turn += 1)
        expect(await post(fixture.server.url, user, '/v1/chat/completions', turnBody(topic, turn))).toBe(200);
    } finally {
      proxy.restore();
    }
    expect([...counts(upstreams)].sort((a, b) => a - b)).toEqual([0, 0, 10]);
  });
});
