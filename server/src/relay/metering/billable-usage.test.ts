import { describe, expect, it } from 'vitest';
import { billableUsage, type LocalCount } from './billable-usage.js';

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
