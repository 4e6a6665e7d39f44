import { parseJson } from '@sluice/contract/parse-json';
import type { ClientFormat } from './chat-request.js';
import type { SseEvent } from './sse-parser.js';

/** A reply's tokens as billed: the prompt (cache reads and writes included) and the completion. */
export interface ReplyUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

/** What one event adds to the reply. */
export interface ReplyUpdate {
  readonly text?: string;
  readonly reasoning?: string;
  readonly usage?: ReplyUsage;
  readonly error?: string;
  /** The stream says it is over (OpenAI's [DONE], message_stop, response.completed). */
  readonly done?: boolean;
}

type Json = Record<string, unknown>;

const objectOf = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const countOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
/** The value at a path of keys (array indexes as text). */
const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>(
    (node, key) => (typeof node === 'object' && node !== null ? (node as Json)[key] : undefined),
    value,
  );

const errorOf = (json: Json | undefined): string | undefined => {
  const error = json?.['error'];
  if (error === undefined || error === null) return undefined;
  return textOf(at(error, 'message')) ?? textOf(error) ?? JSON.stringify(error);
};

/** OpenAI chat's usage: prompt_tokens with the cached ones inside, as Sluice bills them. */
export const openAiUsage = (usage: unknown): ReplyUsage | undefined =>
  objectOf(usage) && {
    promptTokens: countOf(at(usage, 'prompt_tokens')),
    completionTokens: countOf(at(usage, 'completion_tokens')),
    cacheReadTokens: countOf(at(usage, 'prompt_tokens_details', 'cached_tokens')),
    cacheWriteTokens: countOf(at(usage, 'prompt_tokens_details', 'cache_creation_tokens')),
  };

/** Anthropic's usage: input_tokens are only the uncached rest of the prompt. */
const anthropicUsage = (usage: unknown): ReplyUsage | undefined => {
  if (!objectOf(usage)) return undefined;
  const read = countOf(at(usage, 'cache_read_input_tokens'));
  const write = countOf(at(usage, 'cache_creation_input_tokens'));
  return {
    promptTokens: countOf(at(usage, 'input_tokens')) + read + write,
    completionTokens: countOf(at(usage, 'output_tokens')),
    cacheReadTokens: read,
    cacheWriteTokens: write,
  };
};

/** The Responses API's usage: input_tokens with the cached ones inside. */
const responsesUsage = (usage: unknown): ReplyUsage | undefined =>
  objectOf(usage) && {
    promptTokens: countOf(at(usage, 'input_tokens')),
    completionTokens: countOf(at(usage, 'output_tokens')),
    cacheReadTokens: countOf(at(usage, 'input_tokens_details', 'cached_tokens')),
    cacheWriteTokens: 0,
  };

const readOpenAi = (event: SseEvent): ReplyUpdate => {
  if (event.data.trim() === '[DONE]') return { done: true };
  const json = objectOf(parseJson(event.data));
  const error = errorOf(json);
  if (error !== undefined) return { error };
  const delta = at(json?.['choices'], '0', 'delta');
  return {
    text: textOf(at(delta, 'content')),
    reasoning: textOf(at(delta, 'reasoning_content')) ?? textOf(at(delta, 'reasoning')),
    usage: openAiUsage(json?.['usage']),
  };
};

const readAnthropic = (event: SseEvent): ReplyUpdate => {
  const json = objectOf(parseJson(event.data));
  switch (textOf(json?.['type']) ?? event.event) {
    case 'message_start':
      return { usage: anthropicUsage(at(json, 'message', 'usage')) };
    case 'content_block_delta':
      return {
        text: textOf(at(json, 'delta', 'text')),
        reasoning: textOf(at(json, 'delta', 'thinking')),
      };
    case 'message_delta':
      return { usage: anthropicUsage(json?.['usage']) };
    case 'message_stop':
      return { done: true };
    case 'error':
      return { error: errorOf(json) ?? event.data };
    default:
      return {};
  }
};

const readResponses = (event: SseEvent): ReplyUpdate => {
  const json = objectOf(parseJson(event.data));
  switch (textOf(json?.['type']) ?? event.event) {
    case 'response.output_text.delta':
      return { text: textOf(json?.['delta']) };
    case 'response.reasoning_summary_text.delta':
    case 'response.reasoning_text.delta':
      return { reasoning: textOf(json?.['delta']) };
    case 'response.completed':
    case 'response.incomplete':
      return { usage: responsesUsage(at(json, 'response', 'usage')), done: true };
    case 'response.failed':
      return { error: errorOf(objectOf(json?.['response'])) ?? 'response.failed', done: true };
    case 'error':
      return { error: textOf(json?.['message']) ?? errorOf(json) ?? event.data };
    default:
      return {};
  }
};

const READERS: Readonly<Record<ClientFormat, (event: SseEvent) => ReplyUpdate>> = {
  openai: readOpenAi,
  anthropic: readAnthropic,
  responses: readResponses,
};

/** What a server-sent event of a client format's stream adds to the reply. */
export const readReplyEvent = (format: ClientFormat, event: SseEvent): ReplyUpdate => READERS[format](event);

/** A refused request's body (any format's error JSON) as one message. */
export const errorMessageOf = (status: number, body: string): string => {
  const json = objectOf(parseJson(body));
  return errorOf(json) ?? textOf(json?.['message']) ?? (body.trim() || `HTTP ${status}`);
};
