import type { PromptTokensDetails, Usage } from './adaptor.js';

/** The prompt tokens a usage says were read from the provider's cache and written to it (0 when none). */
export interface CacheTokens {
  readonly read: number;
  readonly write: number;
}

export const NO_CACHE_TOKENS: CacheTokens = Object.freeze({ read: 0, write: 0 });

/** The cache reads and writes of a usage. */
export const cacheTokensOf = (usage: Usage): CacheTokens => {
  const details = usage.prompt_tokens_details;
  if (!details) return NO_CACHE_TOKENS;
  return { read: details.cached_tokens ?? 0, write: details.cache_creation_tokens ?? 0 };
};

/** `prompt_tokens_details` for cache reads and writes; undefined when there are none. */
export const promptTokensDetails = (cache: CacheTokens): PromptTokensDetails | undefined =>
  cache.read > 0 || cache.write > 0
    ? { cached_tokens: cache.read, ...(cache.write > 0 ? { cache_creation_tokens: cache.write } : {}) }
    : undefined;

const tokenCount = (value: unknown): number => {
  const count = Number(value ?? 0);
  return Number.isFinite(count) && count > 0 ? count : 0;
};

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;

/**
 * OpenAI's usage object (or the Responses API's input/output tokens) as Usage; undefined if not an
 * object. The cache reads come from `prompt_tokens_details.cached_tokens` (chat completions) or
 * `input_tokens_details.cached_tokens` (Responses); both are part of the prompt tokens already.
 */
export const readUsage = (value: unknown): Usage | undefined => {
  const usage = record(value);
  if (!usage) return undefined;
  const prompt = Number(usage['prompt_tokens'] ?? usage['input_tokens'] ?? 0) || 0;
  const completion = Number(usage['completion_tokens'] ?? usage['output_tokens'] ?? 0) || 0;
  const total = Number(usage['total_tokens'] ?? prompt + completion) || prompt + completion;
  const details = record(usage['prompt_tokens_details']) ?? record(usage['input_tokens_details']);
  const cached = details
    ? promptTokensDetails({
        read: tokenCount(details['cached_tokens']),
        write: tokenCount(details['cache_creation_tokens']),
      })
    : undefined;
  return cached
    ? {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: total,
        prompt_tokens_details: cached,
      }
    : { prompt_tokens: prompt, completion_tokens: completion, total_tokens: total };
};

/** Text of every choice (chat message, completion text or stream delta), for local counting. */
export const choiceText = (body: unknown): string => {
  if (typeof body !== 'object' || body === null) return '';
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices)) return '';
  let out = '';
  for (const choice of choices as Record<string, unknown>[]) {
    const message = (choice['message'] ?? choice['delta']) as Record<string, unknown> | undefined;
    if (typeof choice['text'] === 'string') out += choice['text'];
    if (message && typeof message['content'] === 'string') out += message['content'];
    const calls = message?.['tool_calls'];
    if (Array.isArray(calls))
      for (const call of calls as { function?: { name?: unknown; arguments?: unknown } }[]) {
        if (typeof call.function?.name === 'string') out += call.function.name;
        if (typeof call.function?.arguments === 'string') out += call.function.arguments;
      }
  }
  return out;
};
