import { StringDecoder } from 'node:string_decoder';
import { createSseParser } from '../../lib/sse.js';
import type { Adaptor, NativeFormat, SseEvent, StreamDecoder, Usage } from '../providers/adaptor.js';
import type { ChunkSource } from '../pipeline/relay-response.js';
import type { UpstreamResponse } from '../upstream/upstream.js';
import { OPENING_LIMIT_BYTES, StreamRefused, endedUnopened, refusedGarbage } from './stream-opening.js';
import type { StreamOutcome } from './stream-relay.js';

export interface NativeStreamOptions {
  readonly native: NativeFormat;
  /** The channel's adaptor, for a JSON error body sent as a stream. */
  readonly adaptor: Adaptor;
  readonly upstream: UpstreamResponse;
  readonly abortUpstream: () => void;
  readonly onFinish: (outcome: NativeOutcome) => void;
  /**
   * The format's decoder of a stream in another framing than the client's (the format's
   * `decodeStream`): its events are sent as server-sent events. Absent, the bytes go as they came.
   */
  readonly frames?: StreamDecoder | undefined;
  /**
   * The event that ends the client's stream when the upstream breaks after it opened (cut, silent
   * past its idle timeout, unreadable): the client format's own error event (stream-break.ts).
   */
  readonly breakEvent: (error: unknown) => string;
  /** Told every event as it passes (what `breakEvent` may need to say: the Responses API's response). */
  readonly observe?: ((event: SseEvent) => void) | undefined;
}

/** How a native stream ended: its usage is `final` only when the provider's last word on it came. */
export interface NativeOutcome extends StreamOutcome {
  readonly final: boolean;
}

/** A native stream once it opened: its bytes as they come. */
export interface NativeStream extends ChunkSource {
  /**
   * Reads the upstream until its stream opens (its first event that commits the answer): the whole
   * answer when the upstream already ended, else this stream. Throws (or rejects with) a
   * StreamRefused when it does not open: nothing answered, nothing billed, the next channel tried.
   */
  open(): Uint8Array | NativeStream | Promise<Uint8Array | NativeStream>;
}

const NO_BYTES = Buffer.alloc(0);
const LF = 0x0a;
const CR = 0x0d;

/**
 * Where the complete events of `bytes` end: after its last blank line (`\n\n`, `\r\n\r\n` or
 * `\r\r`), 0 when there is none. Found from the end, so a chunk of whole events costs a byte or two.
 */
export const eventsEnd = (bytes: Uint8Array): number => {
  for (let index = bytes.length - 1; index > 0; index -= 1) {
    const byte = bytes[index];
    if (byte !== LF && byte !== CR) continue;
    const before = bytes[index - 1];
    if (before === byte) return index + 1;
    if (byte === LF && before === CR && index >= 3 && bytes[index - 2] === LF && bytes[index - 3] === CR)
      return index + 1;
  }
  return 0;
};

/** An event as the client's server-sent events say it (a data of several lines, line by line). */
const sseEvent = (name: string, data: string): string =>
  (name === '' ? '' : `event: ${name}\n`) +
  (data.includes('\n') || data.includes('\r')
    ? data
        .split(/\r\n|\r|\n/)
        .map((line) => `data: ${line}\n`)
        .join('')
    : `data: ${data}\n`) +
  '\n';

/**
 * A stream in the client's own format, relayed byte for byte: every event is read (the format's tap
 * gives the usage and the text) but none is changed, dropped or added. Held only until it opens, as
 * the translated streams are (stream-opening.ts). A stream in another framing (`frames`) is decoded
 * into the client's events, each sent with its data as it came.
 */
export const nativeStream = (options: NativeStreamOptions): NativeStream => {
  const tap = options.native.streamTap();
  const frames = options.frames;
  const parser = createSseParser();
  const decoder = new StringDecoder('utf8');
  const body = options.upstream.body;
  let usage: Usage | undefined;
  let final = false;
  let text = '';
  // The data of events that hold generated text, read only if the final usage never comes.
  const textEvents: string[] = [];
  let opened = false;
  let finished = false;
  let refusal: StreamRefused | undefined;

  const finish = (aborted: boolean) => {
    if (finished) return;
    finished = true;
    if (!final) for (const data of textEvents) text += options.native.eventText(data);
    options.onFinish({ usage, final, text, aborted });
  };

  /**
   * Reads the events in `chunk` (and the stream's end with `last`): the client's text of them when
   * the stream is re-framed, else '' (the chunk itself goes to the client).
   */
  const read = (chunk: Buffer, last: boolean): string => {
    let events;
    if (frames) {
      events = frames.feed(chunk);
      if (last) events.push(...frames.end());
    } else {
      events = parser.feed(decoder.write(chunk));
      if (last) events.push(...parser.end());
    }
    let out = '';
    const observe = options.observe;
    for (const event of events) {
      const step = tap(event);
      observe?.(event);
      if (!opened) {
        if (step.opening === 'refuse') {
          refusal ??= new StreamRefused(
            step.error?.message ??
              'the upstream answered a stream that does not start with an event of its format',
            step.error,
          );
          return out;
        }
        if (step.opening === 'open') opened = true;
      }
      if (step.usage) {
        usage = step.usage;
        final = step.final === true;
      }
      if (step.text) text += step.text;
      if (step.textLater && !final) textEvents.push(event.data);
      if (frames) out += sseEvent(event.event, event.data);
    }
    return out;
  };

  const unopened: Buffer[] = [];
  let unopenedSize = 0;
  // A re-framed stream's text before it opened (its bytes are not the client's).
  let head = '';
  let held: Uint8Array | undefined;

  /** One upstream chunk before the stream opened: the answer once it opens, undefined to read on. */
  const tryOpen = (chunk: Buffer, last: boolean): Uint8Array | NativeStream | undefined => {
    unopened.push(chunk);
    unopenedSize += chunk.length;
    try {
      head += read(chunk, last);
    } catch {
      refusal ??= refusedGarbage();
    }
    if (!refusal && !opened && (last || unopenedSize > OPENING_LIMIT_BYTES))
      refusal = endedUnopened(unopened, options.adaptor, !last);
    if (refusal) {
      source.done = true;
      options.abortUpstream();
      throw refusal;
    }
    if (!opened) return undefined;
    const bytes = unopened.length === 1 && unopened[0] ? unopened[0] : Buffer.concat(unopened);
    const first = frames ? Buffer.from(head, 'utf8') : whole(bytes, last);
    unopened.length = 0;
    head = '';
    if (last) {
      source.done = true;
      finish(false);
      return first;
    }
    held = first;
    return source;
  };

  // The bytes of an event not yet complete, held until it is: a break then never leaves half an
  // event before the error event (the client would read the two as one garbled event).
  let tail: Buffer | undefined;
  /** The complete events of the bytes passed so far (everything, at the end). */
  const whole = (chunk: Buffer, last: boolean): Buffer => {
    const bytes = tail ? Buffer.concat([tail, chunk]) : chunk;
    tail = undefined;
    if (last) return bytes;
    const end = eventsEnd(bytes);
    if (end === bytes.length) return bytes;
    tail = bytes.subarray(end);
    return bytes.subarray(0, end);
  };

  const opening = async (): Promise<Uint8Array | NativeStream> => {
    for (;;) {
      const chunk = await body.next();
      const answer = tryOpen(chunk ?? NO_BYTES, chunk === undefined || body.ended);
      if (answer) return answer;
    }
  };

  const source: NativeStream = {
    done: false,
    open: () => {
      const all = body.whole();
      return (all === undefined ? undefined : tryOpen(all, true)) ?? opening();
    },
    next: async () => {
      if (held !== undefined) {
        const first = held;
        held = undefined;
        return first;
      }
      for (;;) {
        if (source.done) return undefined;
        let chunk: Buffer | undefined;
        let last: boolean;
        let out: string;
        try {
          chunk = await body.next();
          last = chunk === undefined || body.ended;
          out = read(chunk ?? NO_BYTES, last);
        } catch (error) {
          // Broken off mid-stream: billed for what came; the client's stream ends with its format's
          // error event, never with the closing events that would make the answer look complete.
          source.done = true;
          finish(false);
          return Buffer.from(options.breakEvent(error), 'utf8');
        }
        if (last) {
          source.done = true;
          finish(false);
        }
        if (!frames) {
          const passed = whole(chunk ?? NO_BYTES, last);
          if (passed.length > 0 || last) return passed;
          continue;
        }
        // A re-framed stream answers once a chunk completed an event (or at its end).
        if (out !== '') return Buffer.from(out, 'utf8');
        if (last) return undefined;
      }
    },
    cancel: () => {
      source.done = true;
      options.abortUpstream();
      finish(true);
    },
  };
  return source;
};
