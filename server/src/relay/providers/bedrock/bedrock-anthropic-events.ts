import { parseJson } from '@sluice/contract/parse-json';
import type { SseEvent, StreamDecoder } from '../adaptor.js';
import { exceptionName } from './bedrock-converse-response.js';
import { EXCEPTION_EVENT, createEventStreamDecoder } from './bedrock-event-stream.js';

/**
 * The exceptions of InvokeModelWithResponseStream's event stream (their `:exception-type`, any
 * case) as Anthropic's error types; any other is an api_error.
 */
const ANTHROPIC_ERROR_TYPES: Readonly<Record<string, string>> = {
  throttlingexception: 'rate_limit_error',
  servicequotaexceededexception: 'rate_limit_error',
  serviceunavailableexception: 'overloaded_error',
  modelnotreadyexception: 'overloaded_error',
  modeltimeoutexception: 'timeout_error',
  validationexception: 'invalid_request_error',
  accessdeniedexception: 'permission_error',
  resourcenotfoundexception: 'not_found_error',
  internalserverexception: 'api_error',
  modelstreamerrorexception: 'api_error',
};

/** The type every Anthropic event names first (`{"type":"content_block_delta",…`), read without parsing. */
const LEADING_TYPE = /^\s*\{\s*"type"\s*:\s*"([a-z_]+)"/;

/** An Anthropic event's type: its leading `type` field, else the parsed event's, else ''. */
const typeOf = (data: string): string => {
  const leading = LEADING_TYPE.exec(data);
  if (leading) return leading[1] ?? '';
  const parsed = parseJson(data) as { type?: unknown } | undefined;
  return typeof parsed?.type === 'string' ? parsed.type : '';
};

/** An exception frame (`{message, __type}`, as the decoder gives it) as Anthropic's error event. */
const errorEventOf = (data: string, scrub: (text: string) => string): SseEvent => {
  const exception = parseJson(data) as { message?: unknown; __type?: unknown } | undefined;
  const name = typeof exception?.__type === 'string' ? exceptionName(exception.__type) : '';
  const message = typeof exception?.message === 'string' ? exception.message : '';
  return {
    event: 'error',
    data: JSON.stringify({
      type: 'error',
      error: {
        type: ANTHROPIC_ERROR_TYPES[name.toLowerCase()] ?? 'api_error',
        message: scrub(message || 'the upstream failed mid-stream'),
      },
    }),
  };
};

/**
 * InvokeModelWithResponseStream's frames (AWS's binary event stream, cut however the bytes come)
 * as Anthropic's stream: each `chunk` frame's event (its base64 `bytes`, decoded) with its data
 * unchanged, named by its type; an exception frame (throttlingException, modelStreamErrorException,
 * …, or a stream that does not decode) as Anthropic's `error` event, its type mapped and its text
 * scrubbed. Frames of any other kind say nothing to an Anthropic client and are left out.
 */
export const bedrockAnthropicEvents = (scrub: (text: string) => string): StreamDecoder => {
  const frames = createEventStreamDecoder();
  const anthropic = (events: readonly SseEvent[]): SseEvent[] => {
    const out: SseEvent[] = [];
    for (const event of events)
      if (event.event === '') out.push({ event: typeOf(event.data), data: event.data });
      else if (event.event === EXCEPTION_EVENT) out.push(errorEventOf(event.data, scrub));
    return out;
  };
  return {
    feed: (chunk) => anthropic(frames.feed(chunk)),
    end: () => anthropic(frames.end()),
  };
};
