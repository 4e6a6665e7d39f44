import type { Usage } from '../providers/adaptor.js';
import { cacheTokensOf, promptTokensDetails } from '../providers/openai-usage.js';

/** Local token counts for a request, worked out only when needed. */
export interface LocalCount {
  /** A chat request (an upstream's usage without prompt tokens gets them counted here). */
  readonly chat: boolean;
  readonly promptTokens: () => number;
  readonly textTokens: (text: string) => number;
  /** Told of an upstream usage that was not sane (negative, fractional, not a number, absurd). */
  readonly onInsane?: (reported: Usage) => void;
}

/**
 * More tokens than any one request has: today's largest context windows hold a few million. An
 * upstream that claims more (10²⁰ has been seen) would overflow a counter or a batch: clamped.
 */
export const MAX_TOKENS_PER_REQUEST = 100_000_000;

const saneCount = (value: number): number =>
  Number.isFinite(value) && value > 0 ? Math.min(Math.round(value), MAX_TOKENS_PER_REQUEST) : 0;

/**
 * The usage with every count a whole number in [0, MAX_TOKENS_PER_REQUEST], and the cache reads and
 * writes within the prompt tokens (they are a part of them); the same object when it was.
 */
export const saneUsage = (usage: Usage): Usage => {
  const prompt = saneCount(usage.prompt_tokens);
  const completion = saneCount(usage.completion_tokens);
  const total = saneCount(usage.total_tokens);
  const cache = cacheTokensOf(usage);
  const read = Math.min(saneCount(cache.read), prompt);
  const write = Math.min(saneCount(cache.write), prompt - read);
  if (
    prompt === usage.prompt_tokens &&
    completion === usage.completion_tokens &&
    total === usage.total_tokens &&
    read === cache.read &&
    write === cache.write
  )
    return usage;
  const details = promptTokensDetails({ read, write });
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    ...(details ? { prompt_tokens_details: details } : {}),
  };
};

/**
 * The usage to bill: the upstream's when it reported some (made sane first: whole counts, none
 * negative or absurd; a chat upstream's missing prompt tokens counted locally and taken out of its
 * total), else counted locally from the prompt and the text generated.
 */
export const billableUsage = (reported: Usage | undefined, text: string, local: LocalCount): Usage => {
  const usage = reported && saneUsage(reported);
  if (reported && usage !== reported) local.onInsane?.(reported);
  if (usage && usage.total_tokens > 0) {
    if (usage.prompt_tokens !== 0 || !local.chat) return usage;
    const promptTokens = local.promptTokens();
    return {
      prompt_tokens: promptTokens,
      completion_tokens: Math.max(0, usage.total_tokens - promptTokens),
      total_tokens: usage.total_tokens,
    };
  }
  const promptTokens = local.promptTokens();
  const completion = local.textTokens(text);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completion,
    total_tokens: promptTokens + completion,
  };
};
