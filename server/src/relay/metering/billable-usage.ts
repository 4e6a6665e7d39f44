import type { Usage } from '../providers/adaptor.js';

/** Local token counts for a request, worked out only when needed. */
export interface LocalCount {
  /** A chat request (an upstream's usage without prompt tokens gets them counted here). */
  readonly chat: boolean;
  readonly promptTokens: () => number;
  readonly textTokens: (text: string) => number;
}

/**
 * The usage to bill: the upstream's when it reported some (a chat upstream's missing prompt tokens
 * counted locally and taken out of its total), else counted locally from the prompt and the text
 * generated.
 */
export const billableUsage = (usage: Usage | undefined, text: string, local: LocalCount): Usage => {
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
