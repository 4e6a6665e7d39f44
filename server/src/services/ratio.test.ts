import { describe, expect, it } from 'vitest';
import {
  COMPLETION_RULES,
  completionRatio,
  computeQuota,
  groupRatio,
  mergedCompletionRatio,
  mergedModelRatio,
  modelRatio,
  qualifiedModelKey,
  UNKNOWN_MODEL_RATIO,
} from './ratio.js';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from './ratio-defaults.js';

const AWS = 33;
const GROQ = 29;
const OPENAI = 1;

describe('DEFAULT_MODEL_RATIO', () => {
  it.each([
    ['gpt-3.5-turbo', 0.25],
    ['gpt-4o', 2.5],
    ['gpt-4o-2024-08-06', 1.25],
    ['gpt-4o-mini', 0.075],
    ['gpt-4', 15],
    ['gpt-4-turbo', 5],
    ['o1', 7.5],
    ['o1-mini', 1.5],
    ['claude-3-5-sonnet-20240620', 1.5],
    ['claude-3-5-sonnet-20241022', 1.5],
    ['claude-3-5-sonnet-latest', 1.5],
    ['claude-3-opus-20240229', 7.5],
    ['claude-3-haiku-20240307', 0.125],
    ['text-embedding-3-small', 0.01],
    ['text-embedding-ada-002', 0.05],
    ['whisper-1', 15],
    ['tts-1', 7.5],
    ['tts-1-hd', 15],
    ['dall-e-2', 10],
    ['dall-e-3', 20],
    ['deepseek-chat', 0.07],
    ['gemini-1.5-pro', 0.625],
    ['glm-4-flash', 0],
    ['ERNIE-4.0-8K', 8.52], // 0.12 × RMB, where Go's RMB = 500 / 7 = 71
    ['llama3-8b-8192(33)', 0.15],
    ['llama3-70b-8192(33)', 1.325],
  ])('%s costs %d', (name, ratio) => {
    expect(DEFAULT_MODEL_RATIO[name]).toBe(ratio);
  });
});

describe('modelRatio', () => {
  it('finds a built-in ratio', () => {
    expect(modelRatio('gpt-4o', OPENAI, {})).toEqual({ ratio: 2.5, known: true });
  });

  it('prefers a key qualified with the channel type', () => {
    expect(modelRatio('llama3-8b-8192', AWS, {}).ratio).toBe(0.15);
    expect(modelRatio('llama3-8b-8192', GROQ, {}).ratio).toBe(DEFAULT_MODEL_RATIO['llama3-8b-8192']);
  });

  it('looks up custom qualified, default qualified, custom plain, default plain, in that order', () => {
    const name = 'llama3-8b-8192';
    expect(modelRatio(name, AWS, { [name]: 9 }).ratio).toBe(0.15);
    expect(modelRatio(name, AWS, { [name]: 9, [qualifiedModelKey(name, AWS)]: 8 }).ratio).toBe(8);
    expect(modelRatio(name, GROQ, { [name]: 9 }).ratio).toBe(9);
    expect(modelRatio('my-model', GROQ, { 'my-model(29)': 4, 'my-model': 3 }).ratio).toBe(4);
    expect(modelRatio('my-model', OPENAI, { 'my-model(29)': 4, 'my-model': 3 }).ratio).toBe(3);
  });

  it('lets a custom ratio override a default, including with 0', () => {
    expect(modelRatio('gpt-4o', OPENAI, { 'gpt-4o': 5 })).toEqual({ ratio: 5, known: true });
    expect(modelRatio('gpt-4o', OPENAI, { 'gpt-4o': 0 })).toEqual({ ratio: 0, known: true });
  });

  it('still finds a built-in ratio the custom map leaves out', () => {
    expect(modelRatio('gpt-4', OPENAI, { 'gpt-4o': 5 }).ratio).toBe(15);
  });

  it('prices an unknown model at 30 and says so', () => {
    expect(modelRatio('no-such-model', OPENAI, {})).toEqual({ ratio: UNKNOWN_MODEL_RATIO, known: false });
    expect(UNKNOWN_MODEL_RATIO).toBe(30);
    expect(modelRatio('constructor', OPENAI, {})).toEqual({ ratio: 30, known: false });
  });

  it('prices -internet variants of qwen-* and command-* like the plain model', () => {
    expect(modelRatio('qwen-max-internet', 17, {}).ratio).toBe(DEFAULT_MODEL_RATIO['qwen-max']);
    expect(modelRatio('command-r-internet', 35, {}).ratio).toBe(DEFAULT_MODEL_RATIO['command-r']);
    expect(modelRatio('gpt-4o-internet', OPENAI, {})).toEqual({ ratio: 30, known: false });
  });
});

describe('completionRatio', () => {
  it('uses the explicit defaults', () => {
    expect(completionRatio('llama3-8b-8192', AWS, {})).toBe(2);
    expect(completionRatio('llama3-70b-8192', AWS, {})).toBeCloseTo(0.0035 / 0.00265, 12);
    expect(completionRatio('whisper-1', OPENAI, {})).toBe(0);
    expect(completionRatio('deepseek-chat', 36, {})).toBe(2);
    expect(completionRatio('deepseek-reasoner', 36, {})).toBeCloseTo(2.19 / 0.55, 12);
  });

  it('looks up custom qualified, default qualified, custom plain, default plain, then the rules', () => {
    const name = 'llama3-70b-8192';
    expect(completionRatio(name, AWS, { [name]: 7 })).toBe(DEFAULT_COMPLETION_RATIO['llama3-70b-8192(33)']);
    expect(completionRatio(name, AWS, { [qualifiedModelKey(name, AWS)]: 6 })).toBe(6);
    expect(completionRatio(name, GROQ, { [name]: 7 })).toBe(7);
    expect(completionRatio(name, GROQ, {})).toBe(1.3389830508474576);
    expect(completionRatio('gpt-4o', OPENAI, { 'gpt-4o': 1 })).toBe(1);
  });

  const examples: readonly (readonly [string, number])[] = [
    ['gpt-3.5-turbo', 3],
    ['gpt-3.5-turbo-0125', 3],
    ['gpt-3.5-turbo-1106', 2],
    ['gpt-3.5-turbo-16k', 4 / 3],
    ['gpt-4o-2024-05-13', 3],
    ['gpt-4o', 4],
    ['gpt-4o-mini', 4],
    ['gpt-4o-2024-08-06', 4],
    ['gpt-4-turbo', 3],
    ['gpt-4-1106-preview', 3],
    ['gpt-4-vision-preview', 3],
    ['gpt-4', 2],
    ['gpt-4-32k', 2],
    ['o1', 4],
    ['o1-mini', 4],
    ['chatgpt-4o-latest', 3],
    ['claude-3-opus-20240229', 5],
    ['claude-3-5-sonnet-latest', 5],
    ['claude-sonnet-4-5-20250929', 5],
    ['claude-2.1', 3],
    ['mistral-large-latest', 3],
    ['gemini-1.5-pro', 3],
    ['deepseek-coder', 2],
    ['llama2-70b-4096', 1.25],
    ['llama3-8b-8192', 2],
    ['llama3-70b-8192', 0.79 / 0.59],
    ['command', 2],
    ['command-light-nightly', 2],
    ['command-r', 3],
    ['command-r-internet', 3],
    ['command-r-plus', 5],
    ['grok-beta', 3],
    ['ibm-granite/granite-20b-code-instruct-8k', 5],
    ['ibm-granite/granite-3.0-2b-instruct', 8.333333333333334],
    ['ibm-granite/granite-8b-code-instruct-128k', 5],
    ['meta/meta-llama-3-8b-instruct', 5],
    ['meta/llama-2-70b-chat', 2.75 / 0.65],
    ['meta/meta-llama-3.1-405b-instruct', 1],
    ['mistralai/mistral-7b-v0.1', 5],
    ['mistralai/mixtral-8x7b-instruct-v0.1', 1 / 0.3],
  ];

  it.each(examples)('%s → %d by the rules', (name, ratio) => {
    expect(completionRatio(name, GROQ, {})).toBeCloseTo(ratio, 12);
  });

  it('has an example for every rule', () => {
    const used = new Set(
      examples.map(([name]) =>
        COMPLETION_RULES.findIndex(([matches]) => matches(name.replace(/-internet$/, ''))),
      ),
    );
    expect([...used].sort((a, b) => a - b)).toEqual(COMPLETION_RULES.map((_rule, index) => index));
  });

  it('falls back to 1', () => {
    expect(completionRatio('yi-34b-chat-0205', 31, {})).toBe(1);
    expect(completionRatio('no-such-model', OPENAI, {})).toBe(1);
    expect(completionRatio('constructor', OPENAI, {})).toBe(1);
  });

  it('prices qwen -internet variants like the plain model', () => {
    expect(completionRatio('qwen-max-internet', 17, { 'qwen-max': 3 })).toBe(3);
  });
});

describe('groupRatio', () => {
  const groups = { default: 1, vip: 0.8, svip: 0.5 };

  it('reads the group from the map', () => {
    expect(groupRatio('vip', groups)).toBe(0.8);
    expect(groupRatio('svip', groups)).toBe(0.5);
    expect(groupRatio('free', { free: 0 })).toBe(0);
  });

  it('prices an unknown group at 1', () => {
    expect(groupRatio('gold', groups)).toBe(1);
    expect(groupRatio('toString', groups)).toBe(1);
  });
});

describe('merged ratios', () => {
  it('lays the stored model ratios over the defaults', () => {
    const merged = mergedModelRatio({ 'gpt-4o': 5, 'my-model': 2 });
    expect(merged['gpt-4o']).toBe(5);
    expect(merged['my-model']).toBe(2);
    expect(merged['gpt-3.5-turbo']).toBe(0.25);
    expect(Object.keys(merged)).toHaveLength(Object.keys(DEFAULT_MODEL_RATIO).length + 1);
  });

  it('lays the stored completion ratios over the defaults', () => {
    expect(mergedCompletionRatio({})).toEqual(DEFAULT_COMPLETION_RATIO);
    expect(mergedCompletionRatio({ 'whisper-1': 1 })['whisper-1']).toBe(1);
    expect(mergedCompletionRatio({ x: 3 })['deepseek-chat']).toBe(2);
  });
});

describe('computeQuota', () => {
  const quotaOf = (model: string, promptTokens: number, completionTokens: number, group = 1): number =>
    computeQuota({
      promptTokens,
      completionTokens,
      modelRatio: modelRatio(model, OPENAI, {}).ratio,
      completionRatio: completionRatio(model, OPENAI, {}),
      groupRatio: group,
    });

  it('bills gpt-4o 1000 prompt + 500 completion at 7500, exactly', () => {
    expect(quotaOf('gpt-4o', 1000, 500)).toBe(7500);
  });

  it('does not round float noise up to the next unit', () => {
    // 100 × 0.07 is 7.000000000000001 in binary floating point.
    expect(quotaOf('deepseek-chat', 100, 0)).toBe(7);
    expect(quotaOf('deepseek-chat', 100, 50)).toBe(14);
  });

  it('rounds a genuine fraction up', () => {
    expect(quotaOf('gpt-3.5-turbo', 101, 0)).toBe(26);
    expect(quotaOf('gpt-4o-mini', 10, 0)).toBe(1);
  });

  it('applies the group ratio', () => {
    expect(quotaOf('gpt-4o', 1000, 500, 0.5)).toBe(3750);
  });

  it('bills nothing for no tokens', () => {
    expect(quotaOf('gpt-4o', 0, 0)).toBe(0);
  });

  it('bills at least 1 when the ratio is not 0', () => {
    const tiny = { promptTokens: 1, completionTokens: 0, completionRatio: 1, groupRatio: 1 };
    expect(computeQuota({ ...tiny, modelRatio: 1e-12 })).toBe(1);
    expect(computeQuota({ ...tiny, modelRatio: -500000 })).toBe(1);
  });

  it('bills nothing for a free model', () => {
    expect(quotaOf('glm-4-flash', 1000, 500)).toBe(0);
    expect(quotaOf('gpt-4o', 1000, 500, 0)).toBe(0);
  });

  it('prices cache reads and writes at their ratios, within the prompt', () => {
    const claude = { modelRatio: 1.5, completionRatio: 5, groupRatio: 1 };
    // (50 uncached + 1800 × 0.1 + 248 × 1.25 + 503 × 5) × 1.5 = (50 + 180 + 310 + 2515) × 1.5
    expect(
      computeQuota({
        ...claude,
        promptTokens: 2098,
        completionTokens: 503,
        cacheReadTokens: 1800,
        cacheReadRatio: 0.1,
        cacheWriteTokens: 248,
        cacheWriteRatio: 1.25,
      }),
    ).toBe(4583);
  });

  it('bills cache tokens at ratio 1 exactly as one-api bills the prompt', () => {
    const base = {
      promptTokens: 1000,
      completionTokens: 500,
      modelRatio: 2.5,
      completionRatio: 4,
      groupRatio: 1,
    };
    const plain = computeQuota(base);
    expect(plain).toBe(7500);
    expect(computeQuota({ ...base, cacheReadTokens: 800, cacheReadRatio: 1 })).toBe(plain);
    expect(computeQuota({ ...base, cacheReadTokens: 800, cacheWriteTokens: 200 })).toBe(plain);
    expect(computeQuota({ ...base, cacheReadTokens: 0, cacheReadRatio: 0.1 })).toBe(plain);
  });
});
