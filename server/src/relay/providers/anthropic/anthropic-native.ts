import { parseJson } from '@sluice/contract/parse-json';
import type { NativeFormat, NativeStreamStep, RelayRequestMeta, SseEvent, Usage } from '../adaptor.js';
import { ANTHROPIC_DEFAULT_VERSION } from './anthropic-defaults.js';
import {
  anthropicBilledUsage,
  anthropicInputOf,
  NO_ANTHROPIC_INPUT,
  parseAnthropicError,
  type AnthropicInput,
} from './anthropic-response.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

/** Anthropic's usage object read as billed: input with cache writes and reads, output. */
const anthropicUsageOf = (usage: Json, before: AnthropicInput): { input: AnthropicInput; usage: Usage } => {
  const input = anthropicInputOf(
    {
      input_tokens: count(usage['input_tokens']),
      cache_read_input_tokens: count(usage['cache_read_input_tokens']),
      cache_creation_input_tokens: count(usage['cache_creation_input_tokens']),
    },
    before,
  );
  return { input, usage: anthropicBilledUsage(input, count(usage['output_tokens']) ?? 0) };
};

/** The text of a message's content blocks (text, thinking, tool input), for local counting. */
const blocksText = (content: unknown): string => {
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content as unknown[]) {
    if (!isObject(block)) continue;
    if (typeof block['text'] === 'string') text += block['text'];
    if (typeof block['thinking'] === 'string') text += block['thinking'];
    if (block['type'] === 'tool_use')
      text += (typeof block['name'] === 'string' ? block['name'] : '') + JSON.stringify(block['input'] ?? {});
  }
  return text;
};

const DELTA_TEXT = ['text', 'thinking', 'partial_json'] as const;

/**
 * One Anthropic stream's reader: message_start opens it (its usage gives the input), message_delta
 * carries the output so far (and, from newer models, the input again), an error event is the
 * provider's error; pings are waited past. The bytes themselves go to the client untouched.
 */
const anthropicTap = (): ((event: SseEvent) => NativeStreamStep) => {
  let input = NO_ANTHROPIC_INPUT;
  let usage: Usage | undefined;
  return (event) => {
    let type = event.event;
    if (type === 'ping') return { opening: 'wait' };
    // The frequent events are told by their name alone, without parsing them: a text delta is read
    // (eventText) only when the stream ends without its final usage.
    if (type === 'content_block_delta') return { opening: 'open', textLater: true };
    if (type === 'content_block_start' || type === 'content_block_stop' || type === 'message_stop')
      return { opening: 'open' };
    const data = parseJson(event.data);
    if (!isObject(data)) return { opening: 'refuse' };
    if (type === '' && typeof data['type'] === 'string') type = data['type'];
    switch (type) {
      case 'content_block_delta':
        return { opening: 'open', textLater: true };
      case 'message_start': {
        const message = isObject(data['message']) ? data['message'] : {};
        ({ input, usage } = anthropicUsageOf(
          isObject(message['usage']) ? message['usage'] : {},
          NO_ANTHROPIC_INPUT,
        ));
        return { opening: 'open', usage };
      }
      case 'message_delta':
        if (isObject(data['usage'])) ({ input, usage } = anthropicUsageOf(data['usage'], input));
        return usage ? { opening: 'open', usage, final: true } : { opening: 'open' };
      case 'error': {
        const error = parseAnthropicError(data);
        return error ? { opening: 'refuse', error } : { opening: 'refuse' };
      }
      case 'ping':
        return { opening: 'wait' };
      case 'content_block_start':
      case 'content_block_stop':
      case 'message_stop':
        return { opening: 'open' };
      default:
        return { opening: 'refuse' };
    }
  };
};

/**
 * Anthropic's Messages API spoken by the client itself: the body goes to `<base>/v1/messages` as it
 * came (its model replaced when the channel maps it), with the channel's key and the client's
 * `anthropic-version` and `anthropic-beta`; the answer comes back as it came.
 */
export const anthropicNative: NativeFormat = {
  format: 'anthropic',
  buildRequest: (body, raw, meta: RelayRequestMeta) => {
    const beta = meta.clientHeaders['anthropic-beta'];
    const mapped = body['model'] !== meta.model;
    return {
      url: `${meta.channel.baseUrl}/v1/messages`,
      headers: {
        'x-api-key': meta.channel.key,
        'anthropic-version': meta.clientHeaders['anthropic-version'] || ANTHROPIC_DEFAULT_VERSION,
        ...(beta ? { 'anthropic-beta': beta } : {}),
        'content-type': 'application/json',
        ...(meta.stream ? { accept: 'text/event-stream' } : {}),
      },
      body: mapped ? JSON.stringify({ ...body, model: meta.model }) : raw,
    };
  },
  readAnswer: (body) => {
    if (!isObject(body)) return { text: '' };
    const text = blocksText(body['content']);
    return isObject(body['usage'])
      ? { usage: anthropicUsageOf(body['usage'], NO_ANTHROPIC_INPUT).usage, text }
      : { text };
  },
  streamTap: anthropicTap,
  eventText: (data) => {
    const parsed = parseJson(data);
    const delta = isObject(parsed) && isObject(parsed['delta']) ? parsed['delta'] : {};
    let text = '';
    for (const field of DELTA_TEXT) if (typeof delta[field] === 'string') text += delta[field];
    return text;
  },
};
