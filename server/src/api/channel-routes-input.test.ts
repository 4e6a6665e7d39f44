import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Change } from '../services/change-feed.js';
import type { ApiClient, ApiResponse } from '../test-support/api-client.js';
import { channelBody, clearChannels, readAbilities, readChannels } from '../test-support/channel-fixtures.js';
import { signInRoot } from '../test-support/log-fixtures.js';
import { testDialects, testRedisUrl } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const long = (length: number) => 'x'.repeat(length);

/** Create bodies that must be refused, with the message each must give. */
const BAD_CREATES: [what: string, body: unknown, message: RegExp][] = [
  ['no name', channelBody({ name: undefined }), /^invalid parameter: name: channel name is required$/],
  ['blank name', channelBody({ name: '  ' }), /name: channel name is required/],
  ['name too long', channelBody({ name: long(192) }), /name: channel name must be at most 191 characters/],
  ['name a number', channelBody({ name: 5 }), /name: channel name is required/],
  ['no key', channelBody({ key: undefined }), /key: channel key is required/],
  ['only blank key lines', channelBody({ key: '\n  \r\n' }), /key: channel key is required/],
  ['key a number', channelBody({ key: 12 }), /key: channel key is required/],
  ['no type', channelBody({ type: undefined }), /type: type must be a channel type id/],
  ['type a string', channelBody({ type: '1' }), /type: type must be a channel type id/],
  ['type not whole', channelBody({ type: 1.5 }), /type: type must be a channel type id/],
  ['unknown type', channelBody({ type: 999 }), /type: unknown channel type/],
  [
    'mapping not JSON',
    channelBody({ model_mapping: '{bad' }),
    /model_mapping: model mapping must be valid JSON$/,
  ],
  ['mapping an array', channelBody({ model_mapping: '[1]' }), /model mapping must be valid JSON/],
  ['mapping to numbers', channelBody({ model_mapping: '{"a":1}' }), /model mapping must be valid JSON/],
  [
    'mapping too long',
    channelBody({ model_mapping: `{"a":"${long(1100)}"}` }),
    /model mapping must be at most 1024 characters/,
  ],
  ['config not JSON', channelBody({ config: 'region=us' }), /config: config must be valid JSON$/],
  ['config a string', channelBody({ config: '"us"' }), /config must be valid JSON/],
  [
    'group too long',
    channelBody({ group: `default,${long(30)}` }),
    /group: group must be at most 32 characters/,
  ],
  ['group blank', channelBody({ group: ' , ' }), /group: group must name at least one group/],
  ['group a number', channelBody({ group: 5 }), /group: group must be a comma-separated list/],
  [
    'model name too long',
    channelBody({ models: `a,${long(192)}` }),
    /models: each model name must be at most 191/,
  ],
  ['models a list', channelBody({ models: ['a'] }), /models: models must be a string/],
  ['priority not whole', channelBody({ priority: 1.5 }), /priority: priority must be a whole number/],
  ['priority a string', channelBody({ priority: '3' }), /priority: priority must be a whole number/],
  ['weight a string', channelBody({ weight: 'heavy' }), /weight: weight must be a whole number/],
  ['unknown status', channelBody({ status: 7 }), /status: status must be 1, 2 or 3/],
  ['base url too long', channelBody({ base_url: `https://${long(184)}` }), /base_url must be at most 191/],
  [
    'system prompt too long',
    channelBody({ system_prompt: long(70_000) }),
    /system_prompt must be at most 65535/,
  ],
  ['an array body', [channelBody()], /^invalid parameter: /],
  ['a null body', null, /^invalid parameter: /],
];

/** Update bodies that must be refused (`ID` is replaced by an existing channel's id). */
const BAD_UPDATES: [what: string, body: Record<string, unknown>, message: RegExp][] = [
  ['no id', { status: 2 }, /^invalid parameter: id: id must be a positive whole number$/],
  ['id a string', { id: '1', status: 2 }, /id: id must be a positive whole number/],
  ['id zero', { id: 0, status: 2 }, /id: id must be a positive whole number/],
  ['unknown type', { id: 'ID', type: 999 }, /type: unknown channel type/],
  ['blank name', { id: 'ID', name: '' }, /name: channel name is required/],
  ['blank group', { id: 'ID', group: '' }, /group: group must name at least one group/],
  ['mapping not JSON', { id: 'ID', model_mapping: '{"a":' }, /model mapping must be valid JSON/],
  ['config not JSON', { id: 'ID', config: '{' }, /config must be valid JSON/],
  ['status a string', { id: 'ID', status: 'enabled' }, /status: status must be 1, 2 or 3/],
  ['weight not whole', { id: 'ID', weight: 0.5 }, /weight: weight must be a whole number/],
  ['key a number', { id: 'ID', key: 42 }, /key: key must be a string/],
];

describe.each(testDialects())('channel input checks on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  const events: Change[] = [];
  const db = () => test.sluice.database.db;
  const snapshot = async () => ({ channels: await readChannels(db()), abilities: await readAbilities(db()) });

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    test.sluice.services.changes.on((change) => events.push(change));
  });
  afterAll(() => test?.close());
  beforeEach(async () => {
    await clearChannels(db());
    events.length = 0;
  });

  const expectRefused = (response: ApiResponse, message: RegExp, what: string) => {
    expect(response.status, what).toBe(200);
    expect(response.body.success, what).toBe(false);
    expect(response.body.message, what).toMatch(message);
  };

  const existing = async (): Promise<void> => {
    expect((await root.post('/api/channel/', channelBody({ key: 'sk-existing-a1' }))).body.success).toBe(
      true,
    );
  };

  it('refuses bad create bodies with a clear message and writes nothing', async () => {
    await existing();
    const before = await snapshot();
    events.length = 0;
    for (const [what, body, message] of BAD_CREATES) {
      const response = await root.post('/api/channel/', body);
      expectRefused(response, message, what);
    }
    expectRefused(
      await root.post('/api/channel/', '{"name":', { raw: true }),
      /^invalid parameter: the body must be valid JSON$/,
      'broken JSON',
    );
    expect(await snapshot()).toEqual(before);
    expect(events).toEqual([]);
  });

  it('refuses bad update bodies with a clear message and changes nothing', async () => {
    await existing();
    const [row] = await readChannels(db());
    const before = await snapshot();
    events.length = 0;
    for (const [what, body, message] of BAD_UPDATES) {
      const withId = body['id'] === 'ID' ? { ...body, id: row!.id } : body;
      expectRefused(await root.put('/api/channel/', withId), message, what);
    }
    expect(await snapshot()).toEqual(before);
    expect(events).toEqual([]);
  });

  it('emits a channel change after every write, and none for a refused one', async () => {
    await root.post('/api/channel/', channelBody({ key: 'sk-feed-one' }));
    const [one] = await readChannels(db());
    expect(events).toEqual([{ kind: 'channel', id: one!.id }]);
    await root.post('/api/channel/', channelBody({ key: 'sk-feed-two\nsk-feed-three' }));
    expect(events.at(-1)).toEqual({ kind: 'channel' });
    await root.put('/api/channel/', { id: one!.id, status: 2 });
    expect(events.at(-1)).toEqual({ kind: 'channel', id: one!.id });
    await root.delete('/api/channel/disabled');
    expect(events.at(-1)).toEqual({ kind: 'channel' });
    const [two] = await readChannels(db());
    await root.delete(`/api/channel/${two!.id}`);
    expect(events.at(-1)).toEqual({ kind: 'channel', id: two!.id });
    const count = events.length;
    await root.put('/api/channel/', { id: two!.id, status: 1 });
    await root.post('/api/channel/', channelBody({ type: 999 }));
    expect(events).toHaveLength(count);
  });
});

const redisUrl = testRedisUrl();

describe.skipIf(!redisUrl).each(testDialects())('channel changes across instances on %s', (dialect) => {
  let test: TestSluice;

  beforeAll(async () => {
    test = await startTestSluice(dialect, { REDIS_CONN_STRING: redisUrl ?? '' });
  });
  afterAll(() => test?.close());

  it('tells another instance sharing Redis about every channel write', async () => {
    const other = await test.boot();
    await other.services.changes.ready;
    const heard: Change[] = [];
    other.services.changes.on((change) => heard.push(change));
    const root = await signInRoot(test);
    await root.post('/api/channel/', channelBody({ key: 'sk-across-1' }));
    const [row] = await readChannels(test.sluice.database.db);
    await root.put('/api/channel/', { id: row!.id, status: 2 });
    const mine = () => heard.filter((change) => change.kind === 'channel' && change.id === row!.id);
    await expect.poll(() => mine().length, { timeout: 5000 }).toBe(2);
  });
});
