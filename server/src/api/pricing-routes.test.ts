import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { pricingAnswerSchema, type PricingRow } from '@sluice/contract/schemas/pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../lib/password.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { NOT_LOGGED_IN } from './middleware/auth.js';

describe.each(testDialects())('GET /api/pricing on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let vip: ApiClient;

  const channel = async (fields: Record<string, unknown>) => {
    const created = await root.post('/api/channel/', {
      name: 'channel',
      type: CHANNEL_TYPE.openAi,
      key: 'sk-upstream-secret-key-000',
      group: 'default',
      ...fields,
    });
    expect(created.body.success).toBe(true);
  };
  const setOption = async (key: string, value: string) => {
    const answer = await root.put('/api/option/', { key, value });
    expect(answer.body).toMatchObject({ success: true });
  };
  const pricing = async (client: ApiClient) => {
    const answer = await client.get('/api/pricing');
    expect(answer.status).toBe(200);
    return pricingAnswerSchema.parse(answer.body);
  };
  const row = (rows: readonly PricingRow[], model: string) =>
    rows.find((entry) => entry.model_name === model);

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = apiClient(test.sluice.app);
    await root.login('root', '123456');
    await test.sluice.database.db
      .insertInto('users')
      .values({
        username: 'vipuser',
        password: await hashPassword('password123'),
        display_name: 'vipuser',
        role: 1,
        status: 1,
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: 'vip',
      })
      .execute();
    vip = apiClient(test.sluice.app);
    await vip.login('vipuser', 'password123');
    await setOption('ModelRatio', JSON.stringify({ 'house-model': 0.75, 'house-model(14)': 3 }));
    await setOption('CompletionRatio', JSON.stringify({ 'house-model': 2 }));
    await setOption('GroupRatio', JSON.stringify({ default: 1, vip: 1.5 }));
    await setOption('CacheReadRatio', JSON.stringify({ 'house-model': 0.2 }));
    await channel({
      name: 'openai',
      models: 'gpt-4o,house-model,dall-e-3,tts-1,whisper-1,claude-sonnet-4-5-20250929',
      group: 'default,vip',
    });
    await channel({ name: 'claude', type: CHANNEL_TYPE.anthropic, models: 'house-model', group: 'default' });
    await channel({
      name: 'mapped',
      models: 'cheap-alias',
      group: 'vip',
      model_mapping: JSON.stringify({ 'cheap-alias': 'gpt-4o-mini' }),
    });
    await channel({ name: 'off', models: 'disabled-model', group: 'default' });
    const off = await test.sluice.database.db
      .selectFrom('channels')
      .select('id')
      .where('name', '=', 'off')
      .executeTakeFirstOrThrow();
    expect((await root.put('/api/channel/', { id: off.id, status: 2 })).body.success).toBe(true);
  });
  afterAll(() => test?.close());

  it('prices the caller group’s models by the billing’s ratios, in quota and in dollars', async () => {
    const answer = await pricing(root);
    expect(answer).toMatchObject({ success: true, group: 'default', group_ratio: { default: 1 } });
    expect(answer.quota_per_unit).toBe(500000);
    expect(answer.data.map((entry) => entry.model_name)).toEqual([
      'claude-sonnet-4-5-20250929',
      'dall-e-3',
      'gpt-4o',
      'house-model',
      'house-model',
      'tts-1',
      'whisper-1',
    ]);
    // gpt-4o: ratio 2.5, completion 4, cache reads 0.5: $5 / $20 / $2.50 per 1M.
    expect(row(answer.data, 'gpt-4o')).toMatchObject({
      owner_by: 'openai',
      channel_types: [CHANNEL_TYPE.openAi],
      billed_by: 'tokens',
      quota_type: 0,
      model_ratio: 2.5,
      completion_ratio: 4,
      priced: true,
      enable_groups: ['default'],
      quota: {
        input: 2_500_000,
        output: 10_000_000,
        cache_read: 1_250_000,
        cache_write: 2_500_000,
        image: null,
      },
      usd: { input: 5, output: 20, cache_read: 2.5, cache_write: 5, image: null },
    });
    // A model priced apart on one channel type has a row per price, each with its types.
    const house = answer.data.filter((entry) => entry.model_name === 'house-model');
    expect(house.map((entry) => [entry.channel_types, entry.quota.input, entry.quota.output])).toEqual([
      [[CHANNEL_TYPE.openAi], 750_000, 1_500_000],
      [[CHANNEL_TYPE.anthropic], 3_000_000, 6_000_000],
    ]);
    expect(house[0]?.quota.cache_read).toBe(150_000);
    // Claude's maker, whoever serves it (GET /v1/models' lists put this id under Bedrock).
    expect(row(answer.data, 'claude-sonnet-4-5-20250929')).toMatchObject({
      owner_by: 'anthropic',
      model_ratio: 1.5,
      completion_ratio: 5,
      usd: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
    });
    // dall-e-3 per image (ratio 20: trunc(20 × 1000)), speech per 1M characters, transcripts per 1M tokens.
    expect(row(answer.data, 'dall-e-3')).toMatchObject({
      billed_by: 'image',
      quota_type: 1,
      quota: { image: 20_000, input: null, output: null },
      model_price: 0.04,
    });
    expect(row(answer.data, 'tts-1')).toMatchObject({ billed_by: 'characters', quota: { input: 7_500_000 } });
    expect(row(answer.data, 'whisper-1')).toMatchObject({
      billed_by: 'transcript',
      quota: { output: 15_000_000 },
    });
  });

  it('prices another group at its ratio, and a mapped model at the price of what it is billed as', async () => {
    const answer = await pricing(vip);
    expect(answer).toMatchObject({ group: 'vip', group_ratio: { vip: 1.5 } });
    expect(answer.data.map((entry) => entry.model_name)).toEqual([
      'cheap-alias',
      'claude-sonnet-4-5-20250929',
      'dall-e-3',
      'gpt-4o',
      'house-model',
      'tts-1',
      'whisper-1',
    ]);
    expect(row(answer.data, 'gpt-4o')?.quota).toMatchObject({ input: 3_750_000, output: 15_000_000 });
    // cheap-alias → gpt-4o-mini (ratio 0.075, completion 4) × 1.5.
    expect(row(answer.data, 'cheap-alias')).toMatchObject({
      owner_by: 'openai',
      model_ratio: 0.075,
      quota: { input: 112_500, output: 450_000 },
    });
  });

  it('refuses a visitor unless PricingPublic is on, and then answers the default group’s list', async () => {
    const visitor = apiClient(test.sluice.app);
    const refused = await visitor.get('/api/pricing');
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ success: false, message: NOT_LOGGED_IN });
    await setOption('PricingPublic', 'true');
    try {
      const answer = await pricing(visitor);
      expect(answer.group).toBe('default');
      expect(answer.data.map((entry) => entry.model_name)).toContain('gpt-4o');
      // Credentials that do not hold are still refused: public is for callers who show none.
      const forged = await visitor.get('/api/pricing', { headers: { authorization: 'Bearer nope' } });
      expect(forged.body).toMatchObject({ success: false });
      expect((await pricing(vip)).group).toBe('vip');
    } finally {
      await setOption('PricingPublic', 'false');
    }
    expect((await visitor.get('/api/pricing')).status).toBe(401);
  });
});
