import type { ClientContext } from '../client-format.js';

/**
 * The hub's answer (an OpenAI `chat.completion`, from our own translators or an OpenAI-compatible
 * upstream) as Anthropic's Message. The hub's answer is read defensively, without zod: every field
 * may be missing.
 */

type Json = Readonly<Record<string, unknown>>;

const record = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/**
 * The hub's usage in Anthropic's terms. The hub's prompt_tokens include the cached ones
 * (prompt_tokens_details.cached_tokens, read from the cache, and cache_creation_tokens, written to
 * it); Anthropic's input_tokens are only the rest.
 */
export const anthropicUsageOf = (usage: unknown): AnthropicUsage => {
  const fields = record(usage);
  const details = record(fields?.['prompt_tokens_details']);
  const read = count(details?.['cached_tokens']);
  const written = count(details?.['cache_creation_tokens']);
  return {
    input_tokens: Math.max(0, count(fields?.['prompt_tokens']) - read - written),
    output_tokens: count(fields?.['completion_tokens']),
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
  };
};

const STOP_REASONS: Readonly<Record<string, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  content_filter: 'refusal',
};

/** OpenAI's finish_reason as Anthropic's stop_reason; an answer with tool calls stopped to use them. */
export const anthropicStopReason = (finishReason: unknown, hasToolCalls: boolean): string => {
  const reason = STOP_REASONS[text(finishReason)] ?? 'end_turn';
  return hasToolCalls && reason === 'end_turn' ? 'tool_use' : reason;
};

/** A Message id from the hub's: `chatcmpl-abc` → `msg_abc`; none → one from the request id. */
export const anthropicMessageId = (hubId: unknown, requestId: string): string => {
  const id = text(hubId).replace(/^chatcmpl-/, '');
  if (id.startsWith('msg_')) return id;
  return `msg_${id || requestId}`;
};

/** Tool call arguments as the tool_use block's input: the parsed JSON object, `{}` when not one. */
export const toolInputOf = (args: unknown): Record<string, unknown> => {
  const raw = text(args);
  if (raw === '') return {};
  try {
    return record(JSON.parse(raw)) ?? {};
  } catch {
    return {};
  }
};

/** A message's content as text: a string, or its text parts joined. */
const contentText = (content: unknown): string => {
  if (!Array.isArray(content)) return text(content);
  return content.map((part) => text(record(part)?.['text'])).join('');
};

/** The hub's `chat.completion` as Anthropic's Message. */
export const anthropicFromHub = (completion: Json, context: ClientContext) => {
  const choices = Array.isArray(completion['choices']) ? (completion['choices'] as unknown[]) : [];
  const choice = record(choices[0]);
  const message = record(choice?.['message']);
  const id = anthropicMessageId(completion['id'], context.requestId);
  const content: Record<string, unknown>[] = [];
  const thinking = text(message?.['reasoning_content']) || text(message?.['reasoning']);
  if (thinking !== '') content.push({ type: 'thinking', thinking, signature: '' });
  const answer = contentText(message?.['content']) || text(message?.['refusal']);
  if (answer !== '') content.push({ type: 'text', text: answer });
  const calls = Array.isArray(message?.['tool_calls']) ? (message['tool_calls'] as unknown[]) : [];
  calls.forEach((call, index) => {
    const fields = record(call);
    const fn = record(fields?.['function']);
    content.push({
      type: 'tool_use',
      id: text(fields?.['id']) || `toolu_${id.slice(4)}_${index}`,
      name: text(fn?.['name']),
      input: toolInputOf(fn?.['arguments']),
    });
  });
  const refused = text(message?.['refusal']) !== '' && contentText(message?.['content']) === '';
  return {
    id,
    type: 'message' as const,
    role: 'assistant' as const,
    model: context.model,
    content,
    stop_reason: refused ? 'refusal' : anthropicStopReason(choice?.['finish_reason'], calls.length > 0),
    stop_sequence: null,
    usage: anthropicUsageOf(completion['usage']),
  };
};
