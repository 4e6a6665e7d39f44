import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { Channel } from '@sluice/contract/schemas/channel';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient, type ApiResponse } from '../test-support/api-client.js';
import {
  channelBody,
  clearChannels,
  countChannelRows,
  readAbilities,
  readChannels,
} from '../test-support/channel-fixtures.js';
import { signInNewUser, signInRoot } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const INSUFFICIENT_ROLE = 'no permission: insufficient role';
const NOT_LOGGED_IN = 'no permission: not logged in and no access token';
const BAD_ID = 'invalid parameter: id must be a positive whole number';

const channelsOf = (response: ApiResponse): Channel[] => {
  expect(response.status).toBe(200);
  expect(response.body.success).toBe(true);
  return response.body.data as Channel[];
};

describe.each(testDialects())('channel routes on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  const db = () => test.sluice.database.db;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
  });
  afterAll(() => test?.close());
  beforeEach(() => clearChannels(db()));

  const create = async (overrides: Record<string, unknown> = {}): Promise<Channel> => {
    const response = await root.post('/api/channel/', channelBody(overrides));
    expect(response.body).toEqual({ success: true, message: '' });
    return channelsOf(await root.get('/api/channel/?p=0'))[0]!;
  };

  it('creates a channel and answers it from list, get and search without its key', async () => {
    const before = Math.floor(Date.now() / 1000);
    const channel = await create({
      name: 'main',
      key: 'sk-secret-create-7f3a',
      models: 'gpt-4o,gpt-4o-mini',
    });
    expect(channel).toMatchObject({
      type: CHANNEL_TYPE.openAi,
      key: '',
      status: 1,
      name: 'main',
      weight: 0,
      priority: 0,
      models: 'gpt-4o,gpt-4o-mini',
      group: 'default',
      config: '{}',
      base_url: '',
      used_quota: 0,
      balance: 0,
      test_time: 0,
      response_time: 0,
    });
    expect(channel.created_time).toBeGreaterThanOrEqual(before);
    const responses = [
      await root.get('/api/channel/?p=0'),
      await root.get(`/api/channel/${channel.id}`),
      await root.get('/api/channel/search?keyword=ma'),
      await root.get(`/api/channel/search?keyword=${channel.id}`),
    ];
    expect(responses[1]!.body.data).toEqual(channel);
    expect(channelsOf(responses[2]!)).toEqual([channel]);
    expect(channelsOf(responses[3]!)).toEqual([channel]);
    for (const response of responses) expect(response.text).not.toContain('sk-secret-create-7f3a');
    expect((await readChannels(db()))[0]!.key).toBe('sk-secret-create-7f3a');
  });

  it('answers with and without the trailing slash', async () => {
    const channel = await create();
    for (const path of [
      '/api/channel',
      '/api/channel/',
      '/api/channel/search?keyword=m',
      '/api/channel/search/?keyword=m',
    ])
      expect(channelsOf(await root.get(path)).map((row) => row.id)).toEqual([channel.id]);
    for (const path of [`/api/channel/${channel.id}`, `/api/channel/${channel.id}/`])
      expect((await root.get(path)).body.data).toEqual(channel);
    expect((await root.put('/api/channel', { id: channel.id, weight: 3 })).body.success).toBe(true);
    expect((await root.delete(`/api/channel/${channel.id}/`)).body).toEqual({ success: true, message: '' });
    expect(await countChannelRows(db())).toEqual({ channels: 0, abilities: 0 });
  });

  it('pages by 10, newest first, from page 0', async () => {
    const keys = Array.from({ length: 12 }, (_, index) => `sk-page-${index}`).join('\n');
    await root.post('/api/channel/', channelBody({ key: keys }));
    const ids = (await readChannels(db())).map((row) => row.id).reverse();
    expect(channelsOf(await root.get('/api/channel/?p=0')).map((row) => row.id)).toEqual(ids.slice(0, 10));
    expect(channelsOf(await root.get('/api/channel/?p=1')).map((row) => row.id)).toEqual(ids.slice(10));
    expect(channelsOf(await root.get('/api/channel/?p=2'))).toEqual([]);
    expect(channelsOf(await root.get('/api/channel/?p=-3')).map((row) => row.id)).toEqual(ids.slice(0, 10));
    expect(channelsOf(await root.get('/api/channel/?p=abc')).map((row) => row.id)).toEqual(ids.slice(0, 10));
  });

  it('creates one channel per non-empty key line, each with its abilities', async () => {
    const response = await root.post(
      '/api/channel/',
      channelBody({
        key: 'sk-batch-a\n\n  sk-batch-b  \r\nsk-batch-c\n',
        models: 'm1,m2',
        group: 'default,vip',
      }),
    );
    expect(response.body.success).toBe(true);
    const rows = await readChannels(db());
    expect(rows.map((row) => row.key)).toEqual(['sk-batch-a', 'sk-batch-b', 'sk-batch-c']);
    const { id: _a, key: _b, ...first } = rows[0]!;
    for (const row of rows) expect({ ...row, id: 0, key: '' }).toEqual({ ...first, id: 0, key: '' });
    const abilities = await readAbilities(db());
    expect(abilities).toHaveLength(12);
    for (const row of rows)
      expect(abilities.filter((ability) => ability.channel_id === row.id)).toEqual(
        ['default', 'vip'].flatMap((group) =>
          ['m1', 'm2'].map((model) => ({ group, model, channel_id: row.id, enabled: true, priority: 0 })),
        ),
      );
  });

  it('normalises what it stores and ignores the groups array', async () => {
    const channel = await create({
      base_url: ' https://upstream.test/v1// ',
      models: ' m1 , m2,,m1 ',
      group: ' vip , default,vip',
      groups: ['ignored', 42],
      weight: -5,
      priority: null,
      model_mapping: ' {"gpt-4":"gpt-4o"} ',
      status: undefined,
    });
    expect(channel).toMatchObject({
      base_url: 'https://upstream.test/v1',
      models: 'm1,m2',
      group: 'vip,default',
      weight: 0,
      priority: 0,
      status: 1,
      model_mapping: '{"gpt-4":"gpt-4o"}',
    });
  });

  it('updates only the fields a partial body carries', async () => {
    const channel = await create({ weight: 2, priority: 4 });
    const steps: [Record<string, unknown>, Partial<Channel>][] = [
      [{ status: 2 }, { status: 2 }],
      [{ priority: 0 }, { priority: 0 }],
      [{ weight: 9 }, { weight: 9 }],
      [{ weight: -1 }, { weight: 0 }],
      [
        { status: 1, priority: -2 },
        { status: 1, priority: -2 },
      ],
    ];
    let expected = channel;
    for (const [body, change] of steps) {
      const response = await root.put('/api/channel/', { id: channel.id, ...body });
      expected = { ...expected, ...change };
      expect(response.body).toEqual({ success: true, message: '', data: expected });
    }
    expect((await root.get(`/api/channel/${channel.id}`)).body.data).toEqual(expected);
  });

  it('keeps the key when an update sends it empty, replaces it otherwise, and never answers it', async () => {
    const channel = await create({ key: 'sk-original-91c2' });
    const full = { ...channel, name: 'renamed', base_url: 'https://x.test/', groups: ['default'] };
    const kept = await root.put('/api/channel/', full);
    expect(kept.body.data).toMatchObject({ name: 'renamed', base_url: 'https://x.test', key: '' });
    expect((await readChannels(db()))[0]!.key).toBe('sk-original-91c2');
    const replaced = await root.put('/api/channel/', { ...full, key: ' sk-replaced-55aa ' });
    expect(replaced.text).not.toContain('sk-replaced-55aa');
    expect((await readChannels(db()))[0]!.key).toBe('sk-replaced-55aa');
  });

  it('never answers the secret config fields, keeps them when an update leaves them blank, and composes the key again', async () => {
    const aws = await create({
      type: CHANNEL_TYPE.aws,
      key: 'AKIA1|aws-secret-9c1e|us-east-1',
      config: '{"region":"us-east-1","ak":"AKIA1","sk":"aws-secret-9c1e"}',
    });
    const vertex = await create({
      type: CHANNEL_TYPE.vertexAi,
      key: 'us-central1|proj|{"private_key":"vertex-adc-77b2"}',
      config: JSON.stringify({
        region: 'us-central1',
        vertex_ai_project_id: 'proj',
        vertex_ai_adc: '{"private_key":"vertex-adc-77b2"}',
      }),
    });
    const answers = [
      await root.get('/api/channel/?p=0'),
      await root.get(`/api/channel/${aws.id}`),
      await root.get(`/api/channel/${vertex.id}`),
      await root.get('/api/channel/search?keyword=main'),
    ];
    for (const answer of answers) {
      expect(answer.body.success).toBe(true);
      expect(answer.text).not.toContain('aws-secret-9c1e');
      expect(answer.text).not.toContain('vertex-adc-77b2');
    }
    expect(JSON.parse(aws.config)).toEqual({ region: 'us-east-1', ak: 'AKIA1' });
    // The form sends the fields it shows: a new region, the secret left blank.
    const moved = await root.put('/api/channel/', {
      id: aws.id,
      key: '',
      config: '{"region":"eu-west-1","ak":"AKIA1","sk":""}',
    });
    expect(moved.body.success).toBe(true);
    expect(moved.text).not.toContain('aws-secret-9c1e');
    expect(JSON.parse((moved.body.data as Channel).config)).toEqual({ region: 'eu-west-1', ak: 'AKIA1' });
    const stored = (await readChannels(db())).find((row) => row.id === aws.id)!;
    expect(JSON.parse(stored.config ?? '')).toEqual({
      region: 'eu-west-1',
      ak: 'AKIA1',
      sk: 'aws-secret-9c1e',
    });
    expect(stored.key).toBe('AKIA1|aws-secret-9c1e|eu-west-1');
    // A key given with the update is the key, and a new secret replaces the old one.
    await root.put('/api/channel/', {
      id: aws.id,
      key: 'AKIA2|aws-new-secret|eu-west-1',
      config: '{"region":"eu-west-1","ak":"AKIA2","sk":"aws-new-secret"}',
    });
    const replaced = (await readChannels(db())).find((row) => row.id === aws.id)!;
    expect(replaced.key).toBe('AKIA2|aws-new-secret|eu-west-1');
    expect(JSON.parse(replaced.config ?? '').sk).toBe('aws-new-secret');
  });

  it('clears fields an update sends empty', async () => {
    const channel = await create({
      base_url: 'https://x.test',
      other: '2024-03-01-preview',
      model_mapping: '{"a":"b"}',
      system_prompt: 'be brief',
      config: '{"region":"us"}',
      test_model: 'gpt-4o',
      models: 'a',
    });
    const cleared = {
      base_url: '',
      other: '',
      model_mapping: '',
      system_prompt: '',
      config: '',
      test_model: '',
      models: '',
    };
    const response = await root.put('/api/channel/', { id: channel.id, ...cleared });
    expect(response.body.data).toEqual({ ...channel, ...cleared });
    expect(await readAbilities(db())).toEqual([]);
  });

  it('deletes one channel with its abilities, and says so for an unknown id', async () => {
    const keep = await create({ name: 'keep' });
    const drop = await create({ name: 'drop' });
    expect((await root.delete(`/api/channel/${drop.id}`)).body).toEqual({ success: true, message: '' });
    expect((await readChannels(db())).map((row) => row.id)).toEqual([keep.id]);
    expect(new Set((await readAbilities(db())).map((row) => row.channel_id))).toEqual(new Set([keep.id]));
    const missing = { success: false, message: 'channel does not exist' };
    expect((await root.get(`/api/channel/${drop.id}`)).body).toEqual(missing);
    expect((await root.delete(`/api/channel/${drop.id}`)).body).toEqual(missing);
    expect((await root.put('/api/channel/', { id: drop.id, status: 2 })).body).toEqual(missing);
    expect(await countChannelRows(db())).toEqual({ channels: 1, abilities: 2 });
  });

  it('deletes the disabled channels with their abilities and answers the count', async () => {
    await root.post('/api/channel/', channelBody({ key: 'k1\nk2\nk3\nk4' }));
    const ids = (await readChannels(db())).map((row) => row.id);
    await root.put('/api/channel/', { id: ids[1], status: 2 });
    await root.put('/api/channel/', { id: ids[2], status: 3 });
    const response = await root.delete('/api/channel/disabled');
    expect(response.body).toEqual({ success: true, message: '', data: 2 });
    expect((await readChannels(db())).map((row) => row.id)).toEqual([ids[0], ids[3]]);
    expect(new Set((await readAbilities(db())).map((row) => row.channel_id))).toEqual(
      new Set([ids[0], ids[3]]),
    );
    expect((await root.delete('/api/channel/disabled/')).body.data).toBe(0);
  });

  it('answers a clear invalid parameter for ids that are not positive whole numbers', async () => {
    await create();
    for (const id of ['abc', '0', '-1', '1.5', '1e3', '99999999999999999999', '%20']) {
      for (const response of [
        await root.get(`/api/channel/${id}`),
        await root.delete(`/api/channel/${id}`),
      ]) {
        expect(response.status, id).toBe(200);
        expect(response.body, id).toEqual({ success: false, message: BAD_ID });
      }
    }
    expect((await countChannelRows(db())).channels).toBe(1);
  });

  it('refuses logged-out callers with 401 and common users with insufficient role, writing nothing', async () => {
    const channel = await create();
    const before = await readChannels(db());
    const common = (await signInNewUser(test, `common_${dialect.slice(0, 3)}`)).client;
    const anonymous = apiClient(test.sluice.app);
    const calls = (client: ApiClient) => [
      () => client.get('/api/channel/?p=0'),
      () => client.get('/api/channel'),
      () => client.get('/api/channel/search?keyword=m'),
      () => client.get(`/api/channel/${channel.id}`),
      () => client.post('/api/channel/', channelBody({ key: 'sk-intruder' })),
      () => client.put('/api/channel/', { id: channel.id, status: 2 }),
      () => client.delete('/api/channel/disabled'),
      () => client.delete(`/api/channel/${channel.id}`),
    ];
    for (const call of calls(anonymous)) {
      const response = await call();
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ success: false, message: NOT_LOGGED_IN });
    }
    for (const call of calls(common)) {
      const response = await call();
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: false, message: INSUFFICIENT_ROLE });
    }
    expect(await readChannels(db())).toEqual(before);
  });
});
