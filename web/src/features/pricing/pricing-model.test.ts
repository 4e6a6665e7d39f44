import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { PricingRow } from '@sluice/contract/schemas/pricing';
import { describe, expect, it } from 'vitest';
import {
  ALL_OWNERS,
  channelTypeName,
  formatPrice,
  listedPrices,
  ownersOf,
  priceOf,
} from './pricing-model.js';

const prices = (input: number | null, output: number | null, image: number | null = null) => ({
  input,
  output,
  cache_read: input === null ? null : input / 2,
  cache_write: input,
  image,
});

const row = (
  model: string,
  owner: string,
  input: number | null,
  output: number | null,
  image?: number,
): PricingRow => ({
  model_name: model,
  owner_by: owner,
  channel_types: [CHANNEL_TYPE.openAi],
  billed_by: image === undefined ? 'tokens' : 'image',
  quota_type: image === undefined ? 0 : 1,
  model_ratio: 1,
  completion_ratio: 1,
  cache_read_ratio: 0.5,
  cache_write_ratio: 1,
  model_price: 0,
  priced: true,
  enable_groups: ['default'],
  quota: prices(input, output, image ?? null),
  usd: prices(
    input === null ? null : input / 500000,
    output === null ? null : output / 500000,
    image === undefined ? null : image / 500000,
  ),
});

const ROWS = [
  row('gpt-4o', 'openai', 2_500_000, 10_000_000),
  row('claude-3-5-haiku-20241022', 'anthropic', 400_000, 2_000_000),
  row('dall-e-3', 'openai', null, null, 20_000),
  row('deepseek-chat', 'deepseek', 70_000, 140_000),
];

describe('the price list', () => {
  it('searches name and owner, filters by owner, and sorts by name or price', () => {
    const names = (options: Parameters<typeof listedPrices>[1]) =>
      listedPrices(ROWS, options).map((entry) => entry.model_name);
    expect(names({ search: '', owner: ALL_OWNERS, order: 'name' })).toEqual([
      'claude-3-5-haiku-20241022',
      'dall-e-3',
      'deepseek-chat',
      'gpt-4o',
    ]);
    expect(names({ search: ' GPT ', owner: ALL_OWNERS, order: 'name' })).toEqual(['gpt-4o']);
    expect(names({ search: 'anthrop', owner: ALL_OWNERS, order: 'name' })).toEqual([
      'claude-3-5-haiku-20241022',
    ]);
    expect(names({ search: '', owner: 'openai', order: 'name' })).toEqual(['dall-e-3', 'gpt-4o']);
    // An image's per-image price counts as its input price.
    expect(names({ search: '', owner: ALL_OWNERS, order: 'input' })).toEqual([
      'dall-e-3',
      'deepseek-chat',
      'claude-3-5-haiku-20241022',
      'gpt-4o',
    ]);
    expect(names({ search: '', owner: ALL_OWNERS, order: 'output' })).toEqual([
      'deepseek-chat',
      'claude-3-5-haiku-20241022',
      'gpt-4o',
      'dall-e-3',
    ]);
    expect(ownersOf(ROWS)).toEqual(['anthropic', 'deepseek', 'openai']);
  });

  it('shows prices in dollars or quota, an image’s in the input column, and a dash where none applies', () => {
    const [gpt, , image, deepseek] = ROWS as [PricingRow, PricingRow, PricingRow, PricingRow];
    expect(formatPrice(priceOf(gpt, 'usd', 'input'), 'usd')).toBe('$5.00');
    expect(formatPrice(priceOf(gpt, 'usd', 'cache_read'), 'usd')).toBe('$2.50');
    expect(formatPrice(priceOf(gpt, 'quota', 'output'), 'quota')).toBe('10,000,000');
    expect(formatPrice(priceOf(deepseek, 'usd', 'input'), 'usd')).toBe('$0.14');
    expect(formatPrice(priceOf(deepseek, 'usd', 'cache_read'), 'usd')).toBe('$0.07');
    expect(formatPrice(0.075, 'usd')).toBe('$0.075');
    expect(formatPrice(0.0006, 'usd')).toBe('$0.0006');
    expect(formatPrice(priceOf(image, 'usd', 'input'), 'usd')).toBe('$0.04');
    expect(formatPrice(priceOf(image, 'quota', 'output'), 'quota')).toBe('—');
    expect(channelTypeName(CHANNEL_TYPE.anthropic)).toBe('Anthropic Claude');
  });
});
