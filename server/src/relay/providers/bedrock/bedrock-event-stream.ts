import type { Message, MessageHeaders } from '@smithy/eventstream-codec';
import { parseJson } from '@sluice/contract/parse-json';
import type { SseEvent, StreamDecoder } from '../adaptor.js';
import { EventStreamCodec, fromUtf8 } from './bedrock-smithy.js';

/** The event name the decoder gives an exception frame (its data: `{message, __type}`). */
export const EXCEPTION_EVENT = 'exception';

/**
 * Header names and values are short: one shared TextDecoder reads them in about half the time of
 * Smithy's `toUtf8` (a Buffer made per string). Invalid bytes become U+FFFD either way.
 */
const decoder = new TextDecoder();
const readText = (bytes: Uint8Array): string => decoder.decode(bytes);
const codec = new EventStreamCodec(readText, fromUtf8);
/** A frame is at least its prelude (12 bytes) and its CRC (4); Bedrock's are far under 16 MiB. */
const MIN_FRAME = 16;
const MAX_FRAME = 16 * 1024 * 1024;
const EMPTY = Buffer.alloc(0);

const header = (headers: MessageHeaders, name: string): string => {
  const value = headers[name];
  return value?.type === 'string' ? value.value : '';
};

const utf8 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');

const exception = (message: string, type: string): SseEvent => ({
  event: EXCEPTION_EVENT,
  data: JSON.stringify({ message, __type: type }),
});

const GARBAGE = exception('the upstream sent a malformed event stream', 'bad_response');

/**
 * One frame as an event: an `event` frame by its `:event-type` (InvokeModelWithResponseStream's
 * `chunk` unwrapped: its `bytes`, base64, are the model's own event), an `exception` or `error`
 * frame as EXCEPTION_EVENT with its message and exception name.
 */
const eventOf = (message: Message): SseEvent => {
  const kind = header(message.headers, ':message-type');
  const payload = utf8(message.body);
  if (kind === 'exception' || kind === 'error') {
    const body = parseJson(payload) as { message?: unknown; Message?: unknown } | undefined;
    const text =
      (typeof body?.message === 'string' && body.message) ||
      (typeof body?.Message === 'string' && body.Message) ||
      header(message.headers, ':error-message') ||
      payload;
    const type = header(message.headers, ':exception-type') || header(message.headers, ':error-code');
    return exception(text || 'the upstream failed mid-stream', type || 'upstream_error');
  }
  const type = header(message.headers, ':event-type');
  if (type === 'chunk') {
    const chunk = parseJson(payload) as { bytes?: unknown } | undefined;
    return typeof chunk?.bytes === 'string'
      ? { event: '', data: Buffer.from(chunk.bytes, 'base64').toString('utf8') }
      : { event: type, data: payload };
  }
  return { event: type, data: payload };
};

/**
 * Reads AWS's binary event stream (`application/vnd.amazon.eventstream`): frames cut from the bytes
 * however they arrive, each checked (lengths and CRCs) and decoded by Smithy's codec. A frame that
 * does not decode, or a partial one at the end, ends the stream with a malformed-stream error.
 */
export const createEventStreamDecoder = (): StreamDecoder => {
  let pending: Buffer = EMPTY;
  let broken = false;
  return {
    feed: (chunk) => {
      if (broken) return [];
      const buffer = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      const events: SseEvent[] = [];
      let offset = 0;
      while (buffer.length - offset >= 4) {
        const total = buffer.readUInt32BE(offset);
        if (total < MIN_FRAME || total > MAX_FRAME) {
          broken = true;
          pending = EMPTY;
          events.push(GARBAGE);
          return events;
        }
        if (buffer.length - offset < total) break;
        try {
          events.push(eventOf(codec.decode(buffer.subarray(offset, offset + total))));
        } catch {
          broken = true;
          pending = EMPTY;
          events.push(GARBAGE);
          return events;
        }
        offset += total;
      }
      // What is left is copied: the chunk's buffer belongs to the HTTP client.
      pending = offset === buffer.length ? EMPTY : Buffer.from(buffer.subarray(offset));
      return events;
    },
    end: () => {
      if (broken || pending.length === 0) return [];
      pending = EMPTY;
      broken = true;
      return [GARBAGE];
    },
  };
};

/** Encodes events as frames (the loopback double, fixtures and the benchmark speak it too). */
export const encodeEventStreamFrame = (
  eventType: string,
  payload: string,
  messageType: 'event' | 'exception' = 'event',
): Uint8Array =>
  codec.encode({
    headers: {
      ':message-type': { type: 'string', value: messageType },
      [messageType === 'event' ? ':event-type' : ':exception-type']: { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(payload),
  });
