import { z } from 'zod';
import { nowSeconds } from '../../../lib/time.js';
import type { ParsedResponse, UpstreamErrorInfo, Usage } from '../adaptor.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import {
  chatCompletion,
  replyText,
  usageOf,
  type FinishReason,
  type ToolCall,
} from '../openai-chat-response.js';

const count = z.number().nullish();

export const anthropicUsage = z.looseObject({
  input_tokens: count,
  output_tokens: count,
  cache_creation_input_tokens: count,
  cache_read_input_tokens: count,
});

export const anthropicBlock = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  id: z.string().optional(),
  name: z.string().optional(),
  input: z.unknown().optional(),
});

export const anthropicMessage = z.looseObject({
  id: z.string().default(''),
  content: z.array(anthropicBlock).default([]),
  stop_reason: z.string().nullish(),
  usage: anthropicUsage.nullish(),
});

type AnthropicUsage = z.infer<typeof anthropicUsage>;

/** Anthropic's input, as billed: uncached input, cache reads and cache writes (together the prompt). */
export interface AnthropicInput {
  readonly uncached: number;
  readonly read: number;
  readonly write: number;
}

export const NO_ANTHROPIC_INPUT: AnthropicInput = Object.freeze({ uncached: 0, read: 0, write: 0 });

/**
 * The input counts a usage reports; a count it leaves out is the one known before (a stream's
 * message_delta repeats what message_start said, or says nothing of the input).
 */
export const anthropicInputOf = (
  usage: AnthropicUsage | null | undefined,
  before: AnthropicInput = NO_ANTHROPIC_INPUT,
): AnthropicInput => ({
  uncached: usage?.input_tokens ?? before.uncached,
  read: usage?.cache_read_input_tokens ?? before.read,
  write: usage?.cache_creation_input_tokens ?? before.write,
});

/** The usage billed: every input token in the prompt, the cache reads and writes said apart. */
export const anthropicBilledUsage = (input: AnthropicInput, output: number): Usage =>
  usageOf(input.uncached + input.read + input.write, output, { read: input.read, write: input.write });

const FINISH: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export const finishReasonOf = (stopReason: string | null | undefined): FinishReason | null =>
  stopReason ? (FINISH[stopReason] ?? 'stop') : null;

/** Tool input as OpenAI's JSON arguments string. */
export const argumentsOf = (input: unknown): string =>
  input === undefined || input === null ? '{}' : JSON.stringify(input);

/** A Messages API response as a `chat.completion`: text blocks joined, tool_use → tool_calls. */
export const parseAnthropicResponse = (body: unknown, model: string): ParsedResponse => {
  const parsed = anthropicMessage.safeParse(body);
  const message = parsed.success ? parsed.data : anthropicMessage.parse({});
  let content = '';
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text' && block.text) content += block.text;
    if (block.type === 'tool_use')
      toolCalls.push({
        id: block.id ?? '',
        type: 'function',
        function: { name: block.name ?? '', arguments: argumentsOf(block.input) },
      });
  }
  const usage: Usage | undefined = message.usage
    ? anthropicBilledUsage(anthropicInputOf(message.usage), message.usage.output_tokens ?? 0)
    : undefined;
  return {
    body: chatCompletion(
      `chatcmpl-${message.id}`,
      model,
      nowSeconds(),
      [{ index: 0, content, toolCalls, finishReason: finishReasonOf(message.stop_reason) ?? 'stop' }],
      usage,
    ),
    ...(usage ? { usage } : {}),
    text: replyText(content, toolCalls),
  };
};

const anthropicError = z.looseObject({
  type: z.literal('error'),
  error: z.looseObject({ type: z.string().default('upstream_error'), message: z.string().default('') }),
});

/** `{type:'error', error:{type, message}}` → message, type and code (= the type); else OpenAI-style. */
export const parseAnthropicError = (body: unknown): UpstreamErrorInfo | undefined => {
  const parsed = anthropicError.safeParse(body);
  if (parsed.success && parsed.data.error.message !== '')
    return {
      message: parsed.data.error.message,
      type: parsed.data.error.type,
      code: parsed.data.error.type,
    };
  return parseOpenAiStyleError(body);
};
