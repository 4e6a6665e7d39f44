import { describe, expect, it } from 'vitest';
import { billableUsage, MAX_TOKENS_PER_REQUEST, saneUsage, type LocalCount } from './billable-usage.js';

const local = (chat: boolean): LocalCount & { asked: string[] } => {
  const asked: string[] = [];
  return {
    chat,
    asked,
    promptTokens: () => {
      asked.push('prompt');
      return 7;
    },
    textTokens: (text) => {
      asked.push(`text:${text}`);
      return text.split(' ').length;
    },
  };
};

describe('billableUsage', () => {
  it('bills the upstream’s usage as reported, counting nothing', () => {
    const count = local(true);
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    expect(billableUsage(usage, 'ignored text', count)).toBe(usage);
    expect(count.asked).toEqual([]);
  });

  it('counts a chat prompt the upstream left at zero and takes it out of the total', () => {
    const count = local(true);
    expect(billableUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 10 }, '', count)).toEqual({
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
    });
    expect(billableUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 5 }, '', count)).toEqual({
      prompt_tokens: 7,
      completion_tokens: 0,
      total_tokens: 5,
    });
  });

  it('keeps a zero prompt of other modes (embeddings count no completion)', () => {
    const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 9 };
    expect(billableUsage(usage, '', local(false))).toBe(usage);
  });

  it('counts prompt and text locally when the upstream reported no usage, or an empty one', () => {
    expect(billableUsage(undefined, 'one two three', local(true))).toEqual({
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
    });
    const count = local(false);
    expect(billableUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, 'a b', count)).toEqual({
      prompt_tokens: 7,
      completion_tokens: 2,
      total_tokens: 9,
    });
    expect(count.asked).toEqual(['prompt', 'text:a b']);
  });
});

describe('an upstream usage that is not sane', () => {
  it('is clamped to whole counts in [0, MAX_TOKENS_PER_REQUEST], and said', () => {
    const count = local(false);
    const told: unknown[] = [];
    const absurd = { prompt_tokens: 1e20, completion_tokens: -5, total_tokens: 12.6 };
    expect(billableUsage(absurd, '', { ...count, onInsane: (usage) => told.push(usage) })).toEqual({
      prompt_tokens: MAX_TOKENS_PER_REQUEST,
      completion_tokens: 0,
      total_tokens: 13,
    });
    expect(told).toEqual([absurd]);
  });

  it('reads NaN and infinities as nothing, then counts locally', () => {
    const count = local(true);
    const usage = { prompt_tokens: Number.NaN, completion_tokens: Infinity, total_tokens: Number.NaN };
    expect(billableUsage(usage, 'two words', count)).toEqual({
      prompt_tokens: 7,
      completion_tokens: 2,
      total_tokens: 9,
    });
  });

  it('leaves a sane usage as the same object', () => {
    const usage = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
    expect(saneUsage(usage)).toBe(usage);
  });

  it('keeps the cache reads and writes within the prompt tokens, whole and not negative', () => {
    const cached = {
      prompt_tokens: 100,
      completion_tokens: 4,
      total_tokens: 104,
      prompt_tokens_details: { cached_tokens: 80, cache_creation_tokens: 20 },
    };
    expect(saneUsage(cached)).toBe(cached);
    expect(
      saneUsage({
        prompt_tokens: 100,
        completion_tokens: 4,
        total_tokens: 104,
        prompt_tokens_details: { cached_tokens: 90.4, cache_creation_tokens: 50 },
      }),
    ).toEqual({
      prompt_tokens: 100,
      completion_tokens: 4,
      total_tokens: 104,
      prompt_tokens_details: { cached_tokens: 90, cache_creation_tokens: 10 },
    });
    expect(
      saneUsage({
        prompt_tokens: 10,
        completion_tokens: 4,
        total_tokens: 14,
        prompt_tokens_details: { cached_tokens: -3, cache_creation_tokens: Number.NaN },
      }),
    ).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
  });

  it('drops the cache tokens of a chat prompt counted locally', () => {
    const usage = {
      prompt_tokens: 0,
      completion_tokens: 0,
      total_tokens: 10,
      prompt_tokens_details: { cached_tokens: 5 },
    };
    expect(billableUsage(usage, '', local(true))).toEqual({
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
    });
  });
});
