import { parseJson } from '@sluice/contract/parse-json';
import type { NativeFormat, NativeStreamStep, SseEvent, Usage } from '../adaptor.js';
import { usageOf } from '../openai-chat-response.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import type { UrlBuilder } from './openai-adaptor.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (value: unknown): number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;

/**
 * A Response's usage: input includes the cached tokens (input_tokens_details.cached_tokens, billed
 * as cache reads), output includes the reasoning tokens (billed as completion).
 */
const responseUsage = (response: unknown): Usage | undefined => {
  if (!isObject(response) || !isObject(response['usage'])) return undefined;
  const usage = response['usage'];
  const input = count(usage['input_tokens']);
  const details = isObject(usage['input_tokens_details']) ? usage['input_tokens_details'] : {};
  const read = Math.min(count(details['cached_tokens']), input);
  return usageOf(input, count(usage['output_tokens']), { read, write: 0 });
};

/** The text of a Response's output items (messages, function calls), for local counting. */
const outputText = (response: unknown): string => {
  if (!isObject(response) || !Array.isArray(response['output'])) return '';
  let text = '';
  for (const item of response['output'] as unknown[]) {
    if (!isObject(item)) continue;
    if (typeof item['arguments'] === 'string')
      text += (typeof item['name'] === 'string' ? item['name'] : '') + item['arguments'];
    if (Array.isArray(item['content']))
      for (const part of item['content'] as unknown[])
        if (isObject(part) && typeof part['text'] === 'string') text += part['text'];
  }
  return text;
};

/** The events that end a Response, each carrying the whole response and its usage. */
const FINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** One Responses stream's reader: opened by `response.created`; usage from the final event. */
const responsesTap = (): ((event: SseEvent) => NativeStreamStep) => (event) => {
  const type = event.event;
  if (type.endsWith('.delta')) {
    if (type !== 'response.output_text.delta' && type !== 'response.function_call_arguments.delta')
      return { opening: 'open' };
    // Read (eventText) only when the stream ends without its final usage.
    return { opening: 'open', textLater: true };
  }
  const data = parseJson(event.data);
  if (!isObject(data)) return { opening: 'refuse' };
  const kind = type || (typeof data['type'] === 'string' ? data['type'] : '');
  if (kind === 'error') {
    const error = parseOpenAiStyleError({ error: data });
    return error ? { opening: 'refuse', error } : { opening: 'refuse' };
  }
  if (FINAL.has(kind)) {
    const usage = responseUsage(data['response']);
    return usage ? { opening: 'open', usage, final: true } : { opening: 'open' };
  }
  return { opening: kind.startsWith('response.') ? 'open' : 'refuse' };
};

/**
 * OpenAI's Responses API spoken by the client, to a channel that serves it (OpenAI's own): the body
 * goes to `<base>/v1/responses` as it came (its model replaced when the channel maps it).
 */
export const responsesNative = (url: UrlBuilder): NativeFormat => ({
  format: 'responses',
  buildRequest: (body, raw, meta) => ({
    url: url(meta.channel, '/v1/responses', 'chat'),
    headers: {
      authorization: `Bearer ${meta.channel.key}`,
      'content-type': 'application/json',
      ...(meta.stream ? { accept: 'text/event-stream' } : {}),
    },
    body: body['model'] === meta.model ? raw : JSON.stringify({ ...body, model: meta.model }),
  }),
  readAnswer: (body) => {
    const usage = responseUsage(body);
    return usage ? { usage, text: outputText(body) } : { text: outputText(body) };
  },
  streamTap: responsesTap,
  eventText: (data) => {
    const parsed = parseJson(data);
    return isObject(parsed) && typeof parsed['delta'] === 'string' ? parsed['delta'] : '';
  },
});
