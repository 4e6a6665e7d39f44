import type { ChannelTypeName } from '@sluice/contract/channel-types';
import { ruleCompletionRatio } from '@sluice/contract/model-pricing';
import { describe, expect, it } from 'vitest';
// A test may cross-check the data tables; adaptor code itself never imports services.
import { completionRatio, modelRatio } from '../../services/ratio.js';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from '../../services/ratio-defaults.js';
import { CURRENT_COMPLETION_RATIO, CURRENT_MODEL_RATIO } from '../../services/ratio-defaults-current.js';
import { PROVIDERS } from './registry.js';

/**
 * Models of the default lists that Sluice does not price yet, each with why: they are billed at
 * one-api's fallback ratio of 30 (and the log and the price list say so). The list is exact: price
 * one and the test asks for it to leave this list.
 */
const NOT_PRICED: Partial<
  Record<ChannelTypeName, { readonly why: string; readonly models: readonly string[] }>
> = {
  palm: { why: 'retired by Google', models: ['PaLM-2'] },
  ali: {
    why: 'no published price for the small Qwen2.5-VL sizes',
    models: ['qwen2.5-vl-2b-instruct', 'qwen2.5-vl-1b-instruct', 'qwen2.5-vl-0.5b-instruct'],
  },
  gemini: {
    why: 'free of charge on the Gemini API (an operator who resells them sets a price)',
    models: ['gemma-2-2b-it', 'gemma-2-9b-it', 'gemma-2-27b-it', 'text-embedding-004'],
  },
  baichuan: { why: 'price not published in dollars or per token here', models: ['Baichuan-Text-Embedding'] },
  groq: {
    why: 'Whisper is billed per audio hour (no token price); the others were previews Groq retired',
    models: [
      'llama-3.2-90b-vision-preview',
      'llava-v1.5-7b-4096-preview',
      'distil-whisper-large-v3-en',
      'whisper-large-v3',
      'whisper-large-v3-turbo',
      'deepseek-r1-distill-llama-70b-specdec',
    ],
  },
  ollama: {
    why: 'models an operator runs on their own hardware: no provider price',
    models: [
      'codellama:7b-instruct',
      'llama2:7b',
      'llama2:latest',
      'llama3:latest',
      'phi3:latest',
      'qwen:0.5b-chat',
      'qwen:7b',
    ],
  },
  stepFun: { why: 'not researched yet', models: ['step-1x-medium'] },
  cloudflare: { why: 'Workers AI bills in neurons, not tokens', models: [] },
  togetherAi: { why: 'not researched yet (third-party host prices change often)', models: [] },
  novita: { why: 'not researched yet (third-party host prices change often)', models: [] },
  siliconFlow: { why: 'not researched yet (third-party host prices change often)', models: [] },
};

/** Types whose whole list is left unpriced (the `models: []` rows above). */
const WHOLE_LIST = new Set(
  Object.entries(NOT_PRICED)
    .filter(([, entry]) => entry.models.length === 0)
    .map(([name]) => name),
);

describe('the prices of the default model lists', () => {
  it('prices every model a channel type offers by default, but those listed as not priced yet', () => {
    const unpriced: Record<string, string[]> = {};
    for (const provider of Object.values(PROVIDERS)) {
      const missing = provider.models.filter((model) => !modelRatio(model, provider.type, {}).known);
      if (missing.length > 0) unpriced[provider.name] = missing;
    }
    const expected = Object.fromEntries(
      Object.entries(NOT_PRICED)
        .filter(([name]) => !WHOLE_LIST.has(name))
        .map(([name, entry]) => [name, [...entry.models]]),
    );
    for (const name of WHOLE_LIST) expect(unpriced[name]?.length ?? 0, name).toBeGreaterThan(0);
    expect(Object.fromEntries(Object.entries(unpriced).filter(([name]) => !WHOLE_LIST.has(name)))).toEqual(
      expected,
    );
  });

  it("keeps one-api's prices of one-api's own ids: Sluice's additions name none of them", () => {
    for (const [model, ratio] of Object.entries(CURRENT_MODEL_RATIO))
      expect(DEFAULT_MODEL_RATIO[model], model).toBe(ratio);
    for (const [model, ratio] of Object.entries(CURRENT_COMPLETION_RATIO))
      expect(DEFAULT_COMPLETION_RATIO[model], model).toBe(ratio);
  });

  it.each([
    // Anthropic's output / input is 5 for every Claude from 3 on, on every platform's ids.
    ['claude-sonnet-4-5-20250929', 5],
    ['claude-opus-4-1@20250805', 5],
    ['claude-haiku-4-5-20251001', 5],
    ['claude-3-7-sonnet@20250219', 5],
    ['claude-3-5-haiku@20241022', 5],
    // one-api's own Claude ids keep one-api's ratios.
    ['claude-2.1', 3],
    ['claude-instant-1.2', 3],
    ['claude-3-opus-20240229', 5],
    ['gemini-2.5-pro', 8],
    ['gemini-1.5-pro-002', 3],
  ] as const)('%s costs %d× for output', (model, ratio) => {
    expect(completionRatio(model, 0, {})).toBe(ratio);
  });

  it('prices the current Claude, Gemini 2.5, hunyuan and Spark ids at the published prices', () => {
    const usd = (model: string) => modelRatio(model, 0, {}).ratio * 2;
    expect(usd('claude-sonnet-4-5-20250929')).toBe(3);
    expect(usd('claude-opus-4-5-20251101')).toBe(5);
    expect(usd('claude-sonnet-4@20250514')).toBe(3);
    expect(usd('gemini-2.5-flash') * completionRatio('gemini-2.5-flash', 0, {})).toBeCloseTo(2.5, 10);
    expect(usd('hunyuan-lite')).toBe(0);
    expect(usd('Spark-Lite')).toBe(0);
    expect(ruleCompletionRatio('claude-opus-4-20250514')).toBe(5);
  });
});
