import type { Usage } from './adaptor.js';
import { promptTokensDetails, type CacheTokens } from './openai-usage.js';

/** What native adaptors answer: OpenAI's `chat.completion` and `chat.completion.chunk` objects. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface ChoiceOut {
  readonly index: number;
  readonly content: string;
  readonly toolCalls: readonly ToolCall[];
  readonly finishReason: FinishReason | null;
}

export interface ChunkDelta {
  role?: 'assistant';
  content?: string;
  tool_calls?: {
    index: number;
    id?: string;
    type?: 'function';
    function: { name?: string; arguments: string };
  }[];
}

/**
 * A usage; `prompt` counts every input token, cache reads and writes included (they are also said
 * apart in `prompt_tokens_details`, which the client formats report and the price reads).
 */
export const usageOf = (prompt: number, completion: number, cache?: CacheTokens): Usage => {
  const details = cache && promptTokensDetails(cache);
  return details
    ? {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_tokens_details: details,
      }
    : { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
};

/** A `chat.completion`; content is null when the reply is only tool calls. */
export const chatCompletion = (
  id: string,
  model: string,
  created: number,
  choices: readonly ChoiceOut[],
  usage: Usage | undefined,
) => ({
  id,
  object: 'chat.completion' as const,
  created,
  model,
  choices: choices.map((choice) => ({
    index: choice.index,
    message: {
      role: 'assistant' as const,
      content: choice.content === '' && choice.toolCalls.length > 0 ? null : choice.content,
      ...(choice.toolCalls.length > 0 ? { tool_calls: choice.toolCalls } : {}),
    },
    logprobs: null,
    finish_reason: choice.finishReason ?? 'stop',
  })),
  ...(usage ? { usage } : {}),
});

export interface ChunkChoice {
  readonly index: number;
  readonly delta: ChunkDelta;
  readonly finishReason: FinishReason | null;
}

/** One `chat.completion.chunk`. */
export const chatChunk = (id: string, model: string, created: number, choices: readonly ChunkChoice[]) => ({
  id,
  object: 'chat.completion.chunk' as const,
  created,
  model,
  choices: choices.map((choice) => ({
    index: choice.index,
    delta: choice.delta,
    logprobs: null,
    finish_reason: choice.finishReason,
  })),
});

/** Text of a reply for local counting: content, then tool names and arguments. */
export const replyText = (content: string, toolCalls: readonly ToolCall[]): string =>
  content + toolCalls.map((call) => call.function.name + call.function.arguments).join('');
