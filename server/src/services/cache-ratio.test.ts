import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import {
  cacheReadRatio,
  cacheWriteRatio,
  DEFAULT_CACHE_READ_RATIO,
  DEFAULT_CACHE_WRITE_RATIO,
  mergedCacheReadRatio,
} from './cache-ratio.js';
import { qualifiedModelKey } from './ratio.js';

const OPENAI = CHANNEL_TYPE.openAi;
const ANTHROPIC = CHANNEL_TYPE.anthropic;

describe('cache ratios: the providers’ published prices', () => {
  it.each([
    ['claude-3-5-sonnet-20241022', 0.1, 1.25],
    ['claude-sonnet-4-5-20250929', 0.1, 1.25],
    ['claude-opus-4-1', 0.1, 1.25],
    ['claude-3-haiku-20240307', 0.12, 1.2],
    ['gpt-4o', 0.5, 1],
    ['gpt-4o-mini', 0.5, 1],
    ['gpt-4o-2024-05-13', 1, 1],
    ['o1', 0.5, 1],
    ['o1-mini', 0.5, 1],
    ['o3-mini', 0.5, 1],
    ['gpt-4.1', 0.25, 1],
    ['gpt-4.1-nano', 0.25, 1],
    ['o3', 0.25, 1],
    ['o4-mini', 0.25, 1],
    ['gpt-5', 0.1, 1],
    ['gpt-5-mini', 0.1, 1],
    ['gemini-2.5-pro', 0.25, 1],
    ['gemini-2.5-flash', 0.25, 1],
    ['gemini-2.0-flash', 0.25, 1],
    ['gemini-1.5-pro', 0.25, 1],
    ['gpt-3.5-turbo', 1, 1],
    ['deepseek-chat', 1, 1],
    ['a-model-nobody-priced', 1, 1],
  ])('%s: reads × %d, writes × %d', (model, read, write) => {
    expect(cacheReadRatio(model, OPENAI, {})).toBe(read);
    expect(cacheWriteRatio(model, ANTHROPIC, {})).toBe(write);
  });

  it('lists the models one-api prices whose cache is not billed at 1, for the console', () => {
    expect(DEFAULT_CACHE_READ_RATIO).toMatchObject({
      'claude-3-5-sonnet-20241022': 0.1,
      'claude-3-haiku-20240307': 0.12,
      'gpt-4o': 0.5,
      'gemini-2.0-flash': 0.25,
    });
    expect(DEFAULT_CACHE_READ_RATIO['gpt-3.5-turbo']).toBeUndefined();
    expect(DEFAULT_CACHE_READ_RATIO['gpt-4o-2024-05-13']).toBeUndefined();
    expect(Object.values(DEFAULT_CACHE_WRITE_RATIO).every((ratio) => ratio === 1.25 || ratio === 1.2)).toBe(
      true,
    );
  });

  it('takes the option’s ratio first: per channel type, then per model', () => {
    const custom = { 'claude-3-5-sonnet-20241022': 0.2, [qualifiedModelKey('gpt-4o', OPENAI)]: 0.3 };
    expect(cacheReadRatio('claude-3-5-sonnet-20241022', ANTHROPIC, custom)).toBe(0.2);
    expect(cacheReadRatio('gpt-4o', OPENAI, custom)).toBe(0.3);
    expect(cacheReadRatio('gpt-4o', CHANNEL_TYPE.azure, custom)).toBe(0.5);
    expect(cacheReadRatio('my-model', OPENAI, { 'my-model': 0 })).toBe(0);
    expect(mergedCacheReadRatio({ 'my-model': 0.3 })).toMatchObject({ 'my-model': 0.3, 'gpt-4o': 0.5 });
  });
});
