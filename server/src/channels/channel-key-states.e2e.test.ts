import { jsonObjectOf } from '@sluice/contract/channel-config';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenHandler } from '../test-support/listen.js';
import { startRelayFixture, type RelayFixture } from '../test-support/relay-fixture.js';
import { testDialects } from '../test-support/test-databases.js';
import { keyIdOf } from '../relay/routing/channel-keys.js';

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

const GOOD = 'sk-test-good-key-0000000000000001';
const BAD = 'sk-test-bad-key-00000000000000002';

interface KeyState {
  index: number;
  id: string;
  masked: string;
  enabled: boolean;
  reason: string;
  disabled_at: number;
}

describe.each(testDialects())('a channel’s several keys in the console on %s', (dialect) => {
  let fixture: RelayFixture;
  let upstream: Awaited<ReturnType<typeof listenHandler>>;
  const seen: string[] = [];
  const refused = new Set<string>([BAD]);

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

  const channel = async () => {
    const id = await fixture.channel({ type: CHANNEL_TYPE.openAi, base_url: upstream.url, models: 'gpt-4o' });
    expect((await fixture.root.put('/api/channel/', { id, key: `${GOOD}\n${BAD}` })).body.success).toBe(true);
    return id;
  };
  const keysOf = async (id: number) => {
    const answer = await fixture.root.get(`/api/channel/${id}/keys`);
    expect(answer.body.success).toBe(true);
    return answer.body.data as KeyState[];
  };

  it('tests each key, disables the refused one and lists the keys masked', async () => {
    const id = await channel();
    seen.length = 0;
    const tested = await fixture.root.get(`/api/channel/test/${id}`);
    expect(seen).toEqual([GOOD, BAD]);
    // The channel serves (one key passes); the message names the failing key by its place and mask.
    expect(tested.body.success).toBe(true);
    expect(tested.body.message).toMatch(/^key #2 \(…0002\): Incorrect API key/);
    expect(tested.body.keys).toMatchObject([
      { index: 0, id: keyIdOf(GOOD), masked: '…0001', success: true },
      { index: 1, id: keyIdOf(BAD), masked: '…0002', success: false },
    ]);
    const keys = await keysOf(id);
    expect(keys).toMatchObject([
      { index: 0, id: keyIdOf(GOOD), masked: '…0001', enabled: true, reason: '', disabled_at: 0 },
      { index: 1, id: keyIdOf(BAD), masked: '…0002', enabled: false },
    ]);
    expect(keys[1]?.reason).toMatch(/Incorrect API key/);
    expect(keys[1]?.disabled_at).toBeGreaterThan(0);
    const text = JSON.stringify(keys) + JSON.stringify(tested.body);
    expect(text).not.toContain(GOOD);
    expect(text).not.toContain(BAD);
  });

  it('re-enables a key, and a passing test re-enables it too', async () => {
    const id = await channel();
    await fixture.root.get(`/api/channel/test/${id}`);
    const enabled = await fixture.root.post(`/api/channel/${id}/keys/enable`, { key_id: keyIdOf(BAD) });
    expect(enabled.body.success).toBe(true);
    expect((await keysOf(id)).every((key) => key.enabled)).toBe(true);
    const config = await fixture.test.sluice.database.db
      .selectFrom('channels')
      .select('config')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(jsonObjectOf(config.config)).not.toHaveProperty('disabled_keys');
    // Not disabled now, and not a key id at all: refused with a message.
    const again = await fixture.root.post(`/api/channel/${id}/keys/enable`, { key_id: keyIdOf(BAD) });
    expect(again.body).toMatchObject({ success: false, message: 'the key is not disabled' });
    const wrong = await fixture.root.post(`/api/channel/${id}/keys/enable`, { key_id: 'sk-x' });
    expect(wrong.body.success).toBe(false);
    expect((await fixture.root.get('/api/channel/999999/keys')).body.success).toBe(false);

    await fixture.root.get(`/api/channel/test/${id}`);
    expect((await keysOf(id))[1]?.enabled).toBe(false);
    refused.delete(BAD);
    await fixture.root.get(`/api/channel/test/${id}`);
    expect((await keysOf(id)).every((key) => key.enabled)).toBe(true);
    refused.add(BAD);
  });

  it('keeps the key states when the form saves a config it loaded before', async () => {
    const id = await channel();
    await fixture.root.get(`/api/channel/test/${id}`);
    // A config without the states (loaded before the test), then one with a stale state of its own.
    for (const config of [
      '{"user_id":"x"}',
      JSON.stringify({ disabled_keys: { [keyIdOf(GOOD)]: { reason: 'old', at: 1 } } }),
    ]) {
      expect((await fixture.root.put('/api/channel/', { id, config })).body.success).toBe(true);
      expect((await keysOf(id)).map((key) => key.enabled)).toEqual([true, false]);
    }
  });

  it('lists a one-key channel as its one key, masked', async () => {
    const id = await fixture.channel({ type: CHANNEL_TYPE.openAi, base_url: upstream.url, key: GOOD });
    expect(await keysOf(id)).toEqual([
      { index: 0, id: keyIdOf(GOOD), masked: '…0001', enabled: true, reason: '', disabled_at: 0 },
    ]);
  });
});
