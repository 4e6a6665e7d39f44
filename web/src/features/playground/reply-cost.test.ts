import type { PricingAnswer, PricingRow } from '@sluice/contract/schemas/pricing';
import { describe, expect, it } from 'vitest';
import { replyCost, replyPriceOf, type ReplyPrice } from './reply-cost.js';

const usage = (
  promptTokens: number,
  completionTokens: number,
  cacheReadTokens = 0,
  cacheWriteTokens = 0,
) => ({
  promptTokens,
  completionTokens,
  cacheReadTokens,
  cacheWriteTokens,
});

const PRICE: ReplyPrice = {
  modelRatio: 0.75,
  completionRatio: 2.5,
  cacheReadRatio: 0.1,
  cacheWriteRatio: 1.25,
  groupRatio: 1.6,
};

const row = (model: string, overrides: Partial<PricingRow> = {}): PricingRow => {
  const none = { input: null, output: null, cache_read: null, cache_write: null, image: null };
  return {
    model_name: model,
    owner_by: 'openai',
    channel_types: [1],
    billed_by: 'tokens',
    quota_type: 0,
    model_ratio: 0.75,
    completion_ratio: 2.5,
    cache_read_ratio: 0.1,
    cache_write_ratio: 1.25,
    model_price: 0,
    priced: true,
    enable_groups: ['vip'],
    quota: none,
    usd: none,
    ...overrides,
  };
};

describe('replyCost: the billing formula', () => {
  it('bills (prompt + completion × completion ratio) × model ratio × group ratio', () => {
    // (3000 + 400 × 2.5) × 0.75 × 1.6 = 4800, the e2e price list's figure.
    expect(replyCost(usage(3000, 400), PRICE)).toBe(4800);
  });

  it('rounds up, ignoring float noise', () => {
    // (9 + 12 × 2.5) × 0.75 × 1.6 = 46.8 → 47.
    expect(replyCost(usage(9, 12), PRICE)).toBe(47);
    // 0.075 has no exact binary form: 100000 × 0.075 is 7500, not 7501.
    expect(replyCost(usage(100_000, 0), { ...PRICE, modelRatio: 0.075, groupRatio: 1 })).toBe(7500);
  });

  it('prices cache reads and writes at their ratios within the prompt', () => {
    // (1000 − 600 − 200 + 600 × 0.1 + 200 × 1.25 + 10 × 2.5) × 1.2 = 535 × 1.2 = 642.
    expect(replyCost(usage(1000, 10, 600, 200), PRICE)).toBe(642);
  });

  it('charges at least 1 for a priced reply and nothing for a reply without tokens', () => {
    expect(replyCost(usage(1, 0), { ...PRICE, modelRatio: 0.001 })).toBe(1);
    expect(replyCost(usage(0, 0), PRICE)).toBe(0);
    expect(replyCost(usage(10, 10), { ...PRICE, modelRatio: 0 })).toBe(0);
  });
});

describe('replyPriceOf', () => {
  const answer = (rows: PricingRow[]): PricingAnswer => ({
    success: true,
    message: '',
    data: rows,
    group: 'vip',
    group_ratio: { vip: 1.6, default: 1 },
    quota_per_unit: 500_000,
  });

  it("takes the model's ratios and the caller's group ratio", () => {
    expect(replyPriceOf(answer([row('other'), row('house-model')]), 'house-model')).toEqual(PRICE);
  });

  it('has no price for a model not listed or not billed by tokens', () => {
    expect(replyPriceOf(answer([row('house-model')]), 'missing')).toBeUndefined();
    expect(replyPriceOf(answer([row('dall-e-3', { billed_by: 'image' })]), 'dall-e-3')).toBeUndefined();
  });
});
