import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { cacheText, ratiosFor, ratioText, usageQuota } from './pricing.js';

const options = {
  ModelRatio: {},
  CompletionRatio: {},
  GroupRatio: { default: 1 },
  CacheReadRatio: {},
  CacheWriteRatio: {},
};

describe('usageQuota: cache tokens at their own price', () => {
  it('bills a Claude request’s reads at 0.1 and writes at 1.25 of the input price', () => {
    const ratios = ratiosFor('claude-3-5-sonnet-20241022', CHANNEL_TYPE.anthropic, 'default', options);
    expect(ratios).toMatchObject({ model: 1.5, completion: 5, cacheRead: 0.1, cacheWrite: 1.25 });
    const usage = {
      prompt_tokens: 2098,
      completion_tokens: 503,
      total_tokens: 2601,
      prompt_tokens_details: { cached_tokens: 1800, cache_creation_tokens: 248 },
    };
    expect(usageQuota(usage, ratios)).toBe(Math.ceil((50 + 1800 * 0.1 + 248 * 1.25 + 503 * 5) * 1.5));
    expect(cacheText(usage, ratios)).toBe(', cache read 1800 tokens × 0.1, cache write 248 tokens × 1.25');
  });

  it('bills a usage without cache tokens as one-api does, and says nothing more in the log', () => {
    const ratios = ratiosFor('gpt-4o', CHANNEL_TYPE.openAi, 'default', options);
    const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };
    expect(usageQuota(usage, ratios)).toBe(7500);
    expect(cacheText(usage, ratios)).toBe('');
    expect(ratioText(ratios)).toBe('model ratio 2.50, group ratio 1.00, completion ratio 4.00');
  });

  it('bills an unlisted model’s cache reads at full price, and the options’ ratios when set', () => {
    const usage = {
      prompt_tokens: 1000,
      completion_tokens: 0,
      total_tokens: 1000,
      prompt_tokens_details: { cached_tokens: 600 },
    };
    const unlisted = ratiosFor('house-model', CHANNEL_TYPE.openAi, 'default', {
      ...options,
      ModelRatio: { 'house-model': 1 },
    });
    expect(usageQuota(usage, unlisted)).toBe(1000);
    const priced = ratiosFor('house-model', CHANNEL_TYPE.openAi, 'default', {
      ...options,
      ModelRatio: { 'house-model': 1 },
      CacheReadRatio: { 'house-model': 0.125 },
    });
    expect(usageQuota(usage, priced)).toBe(475);
    expect(cacheText(usage, priced)).toBe(', cache read 600 tokens × 0.125');
  });
});
