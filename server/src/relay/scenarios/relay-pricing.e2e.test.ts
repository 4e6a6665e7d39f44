import { pricingAnswerSchema, type PriceSet } from '@sluice/contract/schemas/pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../test-support/api-client.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';
import { consumeLogs } from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';

const MILLION = 1_000_000;

/**
 * The price list is the bill: for a set of ratios (model, completion, group, cache reads), a real
 * request through /v1/chat/completions to a loopback upstream costs exactly what GET /api/pricing
 * says: uncached prompt × input + cache reads × cache read + completion × output, per 1M tokens.
 */
const CASES = [
  {
    name: 'a custom model in a dearer group',
    model: 'house-model',
    group: 'vip',
    ratios: { model: 0.75, completion: 2.5, group: 1.6, cacheRead: 0.2 },
    usage: { prompt_tokens: 3000, completion_tokens: 400 },
  },
  {
    name: 'cache reads at their own price',
    model: 'house-model',
    group: 'vip',
    ratios: { model: 0.75, completion: 2.5, group: 1.6, cacheRead: 0.2 },
    usage: { prompt_tokens: 5000, completion_tokens: 250, cached_tokens: 4000 },
  },
  {
    name: 'a default-priced model at its built-in ratios',
    model: 'gpt-4o',
    group: 'default',
    ratios: { model: 2.5, completion: 4, group: 1, cacheRead: 0.5 },
    usage: { prompt_tokens: 1200, completion_tokens: 300, cached_tokens: 1024 },
  },
] as const;

describe.each(testDialects())('relay: the price list agrees with the bill on %s', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture(dialect);
    const options = fixture.test.sluice.services.options;
    await options.update('ModelRatio', JSON.stringify({ 'house-model': 0.75 }));
    await options.update('CompletionRatio', JSON.stringify({ 'house-model': 2.5 }));
    await options.update('GroupRatio', JSON.stringify({ default: 1, vip: 1.6 }));
    await options.update('CacheReadRatio', JSON.stringify({ 'house-model': 0.2 }));
    await fixture.channel({
      name: 'priced',
      base_url: upstream.url,
      models: 'house-model,gpt-4o',
      group: 'default,vip',
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  /** What the list's prices say a usage costs, in quota units. */
  const listed = (prices: PriceSet, usage: (typeof CASES)[number]['usage']): number => {
    const read = 'cached_tokens' in usage ? usage.cached_tokens : 0;
    return (
      ((usage.prompt_tokens - read) * (prices.input ?? NaN) +
        read * (prices.cache_read ?? NaN) +
        usage.completion_tokens * (prices.output ?? NaN)) /
      MILLION
    );
  };

  it.each(CASES)('$name', async ({ model, group, ratios, usage }) => {
    const user = await fixture.user({ group });
    const signedIn = apiClient(fixture.test.sluice.app);
    const username = (
      await fixture.test.sluice.database.db
        .selectFrom('users')
        .select('username')
        .where('id', '=', user.userId)
        .executeTakeFirstOrThrow()
    ).username;
    await signedIn.login(username, 'password123');
    const answer = pricingAnswerSchema.parse((await signedIn.get('/api/pricing')).body);
    const row = answer.data.find((entry) => entry.model_name === model);
    expect(row).toMatchObject({
      model_ratio: ratios.model,
      completion_ratio: ratios.completion,
      cache_read_ratio: ratios.cacheRead,
    });
    expect(answer.group_ratio[group]).toBe(ratios.group);
    const prices = row?.quota ?? {
      input: null,
      output: null,
      cache_read: null,
      cache_write: null,
      image: null,
    };
    expect(prices.input).toBe(MILLION * ratios.model * ratios.group);

    upstream.usage = usage;
    await user.sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello!' }] });
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    expect(logs).toHaveLength(1);
    const expected = listed(prices, usage);
    expect(Number.isInteger(expected)).toBe(true);
    expect(logs[0]?.quota).toBe(expected);
    // And in dollars: the same price over QuotaPerUnit.
    expect((row?.usd.input ?? 0) * answer.quota_per_unit).toBeCloseTo(prices.input ?? NaN, 6);
  });
});
