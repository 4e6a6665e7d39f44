import { jsonObjectOf } from '@sluice/contract/channel-config';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBaiduDouble } from '../../test-support/baidu-double.js';
import { listenHandler } from '../../test-support/listen.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { chatBody, consumeLogs, relayPost } from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';
import { keyIdOf } from '../routing/channel-keys.js';

const ANSWER = JSON.stringify({
  id: 'c1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
});
const REFUSED = JSON.stringify({
  error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
});

/** Waits until `check` holds (the key's state is written in the background). */
const eventually = async (check: () => Promise<boolean>): Promise<void> => {
  for (let tries = 0; tries < 100; tries += 1) {
    if (await check()) return;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error('never happened');
};

describe.each(testDialects())('relay: several keys per channel on %s', (dialect) => {
  let fixture: RelayFixture;
  let upstream: Awaited<ReturnType<typeof listenHandler>>;
  /** The bearer keys the upstream saw, in order; keys it refuses with a 401. */
  const seen: string[] = [];
  const refused = new Set<string>();
  let groups = 0;

  beforeAll(async () => {
    upstream = await listenHandler((request, _body, response) => {
      const key = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      seen.push(key);
      const status = refused.has(key) ? 401 : 200;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(status === 200 ? ANSWER : REFUSED);
    });
    fixture = await startRelayFixture(dialect);
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  const db = () => fixture.test.sluice.database.db;

  /** A channel in a group of its own whose key field holds `key` (written as the console's edit does). */
  const channelWith = async (key: string, config: Record<string, unknown> = {}) => {
    groups += 1;
    const group = `keys${groups}`;
    const id = await fixture.channel({
      type: CHANNEL_TYPE.openAi,
      base_url: upstream.url,
      models: 'gpt-4o',
      group,
      config: JSON.stringify(config),
    });
    const updated = await fixture.root.put('/api/channel/', { id, key });
    expect(updated.body.success).toBe(true);
    const user = await fixture.user({ group });
    return { id, user };
  };

  const chat = (user: RelayUser) =>
    relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o'));

  const channelRow = (id: number) =>
    db().selectFrom('channels').select(['status', 'config']).where('id', '=', id).executeTakeFirstOrThrow();

  it('rotates round-robin over every key evenly', async () => {
    const keys = ['sk-rr-a', 'sk-rr-b', 'sk-rr-c'];
    const { user } = await channelWith(keys.join('\n'));
    seen.length = 0;
    for (let turn = 0; turn < 30; turn += 1) expect((await chat(user)).status).toBe(200);
    for (const key of keys) expect(seen.filter((one) => one === key)).toHaveLength(10);
  });

  it('picks at random when the channel says so, every key served', async () => {
    const keys = ['sk-rand-a', 'sk-rand-b'];
    const { user } = await channelWith(keys.join('\n'), { key_selection: 'random' });
    seen.length = 0;
    for (let turn = 0; turn < 40; turn += 1) expect((await chat(user)).status).toBe(200);
    for (const key of keys) expect(seen.filter((one) => one === key).length).toBeGreaterThan(4);
  });

  it('disables a refused key alone, with its reason and time, and serves with the others', async () => {
    const keys = ['sk-bad-a', 'sk-good-b', 'sk-good-c'];
    refused.add('sk-bad-a');
    const { id, user } = await channelWith(keys.join('\n'));
    seen.length = 0;
    // The first turn falls on the refused key (RetryTimes 0: the client sees the 401 once).
    expect((await chat(user)).status).toBe(401);
    await eventually(async () => 'disabled_keys' in jsonObjectOf((await channelRow(id)).config));
    const row = await channelRow(id);
    expect(row.status).toBe(CHANNEL_STATUS.enabled);
    const disabled = jsonObjectOf(row.config)['disabled_keys'] as Record<
      string,
      { reason: string; at: number }
    >;
    expect(Object.keys(disabled)).toEqual([keyIdOf('sk-bad-a')]);
    expect(disabled[keyIdOf('sk-bad-a')]?.reason).toMatch(/Incorrect API key/);
    expect(disabled[keyIdOf('sk-bad-a')]?.at).toBeGreaterThan(0);
    for (let turn = 0; turn < 10; turn += 1) expect((await chat(user)).status).toBe(200);
    expect(seen.filter((one) => one === 'sk-bad-a')).toHaveLength(1);
    expect(seen.filter((one) => one === 'sk-good-b')).toHaveLength(5);
    expect(seen.filter((one) => one === 'sk-good-c')).toHaveLength(5);
  });

  it('auto-disables the channel as one-api does once every key is refused', async () => {
    await fixture.test.sluice.services.options.update('AutomaticDisableChannelEnabled', 'true');
    try {
      refused.add('sk-all-a').add('sk-all-b');
      const { id, user } = await channelWith('sk-all-a\nsk-all-b');
      expect((await chat(user)).status).toBe(401);
      await eventually(async () => 'disabled_keys' in jsonObjectOf((await channelRow(id)).config));
      // One key left: the channel still serves.
      expect((await channelRow(id)).status).toBe(CHANNEL_STATUS.enabled);
      expect((await chat(user)).status).toBe(401);
      // The channel's status and its last key's state are two writes, each in the background: wait
      // for both (on MySQL the status has been seen first).
      const bothKeys = async () => {
        const row = await channelRow(id);
        const keys = jsonObjectOf(row.config)['disabled_keys'];
        return (
          row.status === CHANNEL_STATUS.autoDisabled &&
          Object.keys((keys as object | undefined) ?? {}).length === 2
        );
      };
      await eventually(bothKeys);
      const disabled = jsonObjectOf((await channelRow(id)).config)['disabled_keys'];
      expect(Object.keys(disabled as object).sort()).toEqual(
        [keyIdOf('sk-all-a'), keyIdOf('sk-all-b')].sort(),
      );
      expect((await chat(user)).status).toBe(503);
    } finally {
      await fixture.test.sluice.services.options.update('AutomaticDisableChannelEnabled', 'false');
    }
  });

  it('splits Baidu’s ak|sk pairs line by line: a refused pair is disabled alone', async () => {
    const baidu = await startBaiduDouble('baidu-ak-good', 'baidu-sk-good');
    try {
      groups += 1;
      const group = `keys${groups}`;
      const id = await fixture.channel({
        type: CHANNEL_TYPE.baidu,
        base_url: baidu.url,
        key: 'baidu-ak-good|baidu-sk-good',
        models: 'ERNIE-4.0-8K',
        group,
      });
      const user = await fixture.user({ group });
      const ernie = () =>
        relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('ERNIE-4.0-8K'));
      // One pair, as one-api stores it: unchanged.
      expect((await ernie()).status).toBe(200);
      const put = await fixture.root.put('/api/channel/', {
        id,
        key: 'baidu-ak-good|baidu-sk-good\nbaidu-ak-bad|baidu-sk-bad',
      });
      expect(put.body.success).toBe(true);
      expect((await ernie()).status).toBe(200);
      expect((await ernie()).status).not.toBe(200);
      await eventually(async () => 'disabled_keys' in jsonObjectOf((await channelRow(id)).config));
      const disabled = jsonObjectOf((await channelRow(id)).config)['disabled_keys'];
      expect(Object.keys(disabled as object)).toEqual([keyIdOf('baidu-ak-bad|baidu-sk-bad')]);
      for (let turn = 0; turn < 3; turn += 1) expect((await ernie()).status).toBe(200);
      expect((await channelRow(id)).status).toBe(CHANNEL_STATUS.enabled);
    } finally {
      await baidu.close();
    }
  });

  /** Two channels in a group of their own: `first` (tried first, its keys `keys`), then `second`. */
  const failoverPair = async (keys: readonly string[]) => {
    groups += 1;
    const group = `keys${groups}`;
    const channel = (priority: number) =>
      fixture.channel({
        type: CHANNEL_TYPE.openAi,
        base_url: upstream.url,
        models: 'gpt-4o',
        group,
        priority,
      });
    const first = await channel(10);
    const second = await channel(0);
    expect((await fixture.root.put('/api/channel/', { id: first, key: keys.join('\n') })).body.success).toBe(
      true,
    );
    expect(
      (await fixture.root.put('/api/channel/', { id: second, key: `${keys[0]}-second` })).body.success,
    ).toBe(true);
    const user = await fixture.user({ group });
    const attempts = async () => {
      await fixture.test.sluice.idle();
      const rows = await consumeLogs(db(), user.userId);
      const routing = JSON.parse(rows.at(-1)?.routing ?? 'null') as {
        attempts: { channel: number; key: number; status: number; reason: string }[];
      };
      return routing.attempts.map(({ channel, key, status, reason }) => ({ channel, key, status, reason }));
    };
    return { first, second, user, attempts };
  };

  it('retries a refused key on the same channel with its next key before another channel', async () => {
    await fixture.test.sluice.services.options.update('RetryTimes', '2');
    try {
      refused.add('sk-fo-bad-a');
      const { first, user, attempts } = await failoverPair(['sk-fo-bad-a', 'sk-fo-good-b']);
      seen.length = 0;
      expect((await chat(user)).status).toBe(200);
      expect(seen).toEqual(['sk-fo-bad-a', 'sk-fo-good-b']);
      expect(await attempts()).toEqual([
        { channel: first, key: 0, status: 401, reason: 'invalid_api_key' },
        { channel: first, key: 1, status: 200, reason: '' },
      ]);
      await eventually(async () => 'disabled_keys' in jsonObjectOf((await channelRow(first)).config));
      const disabled = jsonObjectOf((await channelRow(first)).config)['disabled_keys'];
      expect(Object.keys(disabled as object)).toEqual([keyIdOf('sk-fo-bad-a')]);
    } finally {
      await fixture.test.sluice.services.options.update('RetryTimes', '0');
    }
  });

  it('moves to the next channel once every key of a channel is refused', async () => {
    await fixture.test.sluice.services.options.update('RetryTimes', '2');
    try {
      refused.add('sk-fo-all-a').add('sk-fo-all-b');
      const { first, second, user, attempts } = await failoverPair(['sk-fo-all-a', 'sk-fo-all-b']);
      seen.length = 0;
      expect((await chat(user)).status).toBe(200);
      expect(seen).toEqual(['sk-fo-all-a', 'sk-fo-all-b', 'sk-fo-all-a-second']);
      expect(await attempts()).toEqual([
        { channel: first, key: 0, status: 401, reason: 'invalid_api_key' },
        { channel: first, key: 1, status: 401, reason: 'invalid_api_key' },
        { channel: second, key: 0, status: 200, reason: '' },
      ]);
      // Every key refused: one turn on the channel (no key left to retry with), then the next channel.
      expect((await chat(user)).status).toBe(200);
      expect((await attempts()).map(({ channel, status }) => ({ channel, status }))).toEqual([
        { channel: first, status: 401 },
        { channel: second, status: 200 },
      ]);
    } finally {
      await fixture.test.sluice.services.options.update('RetryTimes', '0');
    }
  });

  it('relays a one-api channel row of one key unchanged, its key exactly as stored', async () => {
    const { id, user } = await channelWith('sk-one-api-single-key');
    seen.length = 0;
    for (let turn = 0; turn < 3; turn += 1) expect((await chat(user)).status).toBe(200);
    expect(seen).toEqual(['sk-one-api-single-key', 'sk-one-api-single-key', 'sk-one-api-single-key']);
    refused.add('sk-one-api-single-key');
    expect((await chat(user)).status).toBe(401);
    // One key: nothing of Sluice's is written; the channel stays as one-api's rule leaves it (option off).
    const row = await channelRow(id);
    expect(row.status).toBe(CHANNEL_STATUS.enabled);
    expect(row.config).toBe('{}');
  });
});
