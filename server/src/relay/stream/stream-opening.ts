import type { Adaptor, StreamStep, UpstreamErrorInfo } from '../providers/adaptor.js';
import { readUsage } from '../providers/openai-usage.js';
import { parseJson } from '@sluice/contract/parse-json';

/**
 * The relay answers the client only once the upstream's stream has opened: an event of the
 * provider's format that gives the client something (an OpenAI chunk with choices or usage; a
 * translated event that makes a chunk or carries usage). Events before it that are valid but say
 * nothing (a keep-alive, Anthropic's ping, Azure's prompt filter results) are waited past; anything
 * else refuses the stream: the attempt fails before the client got a byte, and nothing is billed.
 */
export type Opening = 'open' | 'wait' | StreamRefused;

/** Bytes read before the stream opened past which it is refused (no provider says nothing for that long). */
export const OPENING_LIMIT_BYTES = 1024 * 1024;

/** Why a stream was refused: the provider's own error when it sent one, else what was wrong. */
export class StreamRefused extends Error {
  override name = 'StreamRefused';
  constructor(
    message: string,
    readonly upstream: UpstreamErrorInfo | undefined = undefined,
  ) {
    super(message);
  }
}

const GARBAGE = 'the upstream answered a stream that does not start with an event of its format';
const ENDED = 'the upstream ended its stream before its first event';

/** An upstream whose stream could not be read at all (a translator that threw on it). */
export const refusedGarbage = (): StreamRefused => new StreamRefused(GARBAGE);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Before the stream opened: an OpenAI-format event's data (as UTF-8 text). */
export const passThroughOpening = (data: string, adaptor: Adaptor): Opening => {
  if (data.trim() === '[DONE]') return new StreamRefused(ENDED);
  const chunk = parseJson(data);
  if (!isObject(chunk)) return new StreamRefused(GARBAGE);
  const choices = chunk['choices'];
  if (Array.isArray(choices) && choices.length > 0) return 'open';
  const error = adaptor.parseError(chunk);
  if (error) return new StreamRefused(error.message, error);
  const usage = readUsage(chunk['usage']);
  return usage && usage.total_tokens > 0 ? 'open' : 'wait';
};

/** Before the stream opened: a translated event (its data, and what the translator made of it). */
export const translatedOpening = (data: string, step: StreamStep): Opening => {
  if (step.error) return new StreamRefused(step.error.message, step.error);
  if (step.chunks.length > 0 || step.usage) return 'open';
  // Nothing made of it: a valid event that says nothing (a ping), or not an event of the format at all.
  return isObject(parseJson(data)) ? 'wait' : new StreamRefused(GARBAGE);
};

/** Text made only of SSE lines (fields, comments, blank lines): a stream, if one that said nothing. */
const isSseText = (text: string): boolean =>
  text.split(/\r?\n/).every((line) => line === '' || /^(:|data|event|id|retry)(:|$)/.test(line));

/**
 * The stream ended (or went on too long) without opening: the provider's error when the bytes are
 * one (a JSON error body sent with a 200 and text/event-stream), else what was wrong.
 */
export const endedUnopened = (raw: readonly Buffer[], adaptor: Adaptor, tooLong: boolean): StreamRefused => {
  const size = raw.reduce((total, chunk) => total + chunk.length, 0);
  if (tooLong || size > 64 * 1024) return new StreamRefused(GARBAGE);
  const text = Buffer.concat(raw, size).toString('utf8');
  const body = parseJson(text);
  const error = body === undefined ? undefined : adaptor.parseError(body);
  if (error) return new StreamRefused(error.message, error);
  return new StreamRefused(isSseText(text) ? ENDED : GARBAGE);
};
