import { StringDecoder } from 'node:string_decoder';
import { createSseParser, sseData } from '../../lib/sse.js';
import type { Adaptor, RelayRequestMeta, SseEvent, Usage } from '../providers/adaptor.js';
import { choiceText, readUsage } from '../providers/openai-usage.js';
import type { ChunkSource } from '../pipeline/relay-response.js';
import type { UpstreamResponse } from '../upstream/upstream.js';
import { isPlain, latin1Of, needsLook, singleData, streamError, utf8Of } from './openai-frames.js';
import { breakInfo, openAiErrorEvent, streamBreak } from './stream-break.js';
import { parseJson } from '@sluice/contract/parse-json';
import {
  OPENING_LIMIT_BYTES,
  endedUnopened,
  passThroughOpening,
  refusedGarbage,
  translatedOpening,
  type Opening,
  type StreamRefused,
} from './stream-opening.js';

export interface StreamOutcome {
  readonly usage: Usage | undefined;
  /** Generated text seen in the stream (for local counting when usage never came). */
  readonly text: string;
  /** The client went away before the end. */
  readonly aborted: boolean;
}

/** A relayed stream: read chunk by chunk, or at once when the upstream's answer is already whole. */
export interface RelayStream extends ChunkSource {
  /**
   * Reads the upstream until its stream opens (stream-opening.ts), before the client is answered:
   * the whole answer when the upstream's stream has already ended, else this stream, whose first
   * `next` gives the bytes read so far. Throws (or rejects with) a StreamRefused when the stream
   * does not open (nothing billed, the upstream aborted), or the upstream's own failure (a timeout,
   * a reset, the client gone).
   */
  open(): Uint8Array | RelayStream | Promise<Uint8Array | RelayStream>;
  /** The whole answer when the upstream's stream has already ended and opened, else undefined. */
  whole(): Uint8Array | undefined;
}

export interface StreamOptions {
  readonly adaptor: Adaptor;
  readonly meta: RelayRequestMeta;
  readonly upstream: UpstreamResponse;
  /** The client asked for usage itself; otherwise the usage chunk Sluice asked for is dropped. */
  readonly clientWantsUsage: boolean;
  /**
   * What a usage costs in dollars: written as `usage.cost` into the usage the client gets (over any
   * cost of the upstream's own), so it says what Sluice bills for it.
   */
  readonly dollarsOf?: ((usage: Usage) => number) | undefined;
  readonly abortUpstream: () => void;
  readonly onFinish: (outcome: StreamOutcome) => void;
}

const NO_BYTES = Buffer.alloc(0);

/**
 * Relays an upstream SSE stream as it arrives: each complete event is forwarded at once (no
 * buffering beyond a partial line). OpenAI-format streams are forwarded verbatim, except the usage
 * chunk the client did not ask for and chunks with neither choices nor usage; other formats go
 * through the adaptor. A stream that ends ends with `data: [DONE]`; one that broke, or whose
 * provider reported an error, ends with OpenAI's error event and no `[DONE]` (stream-break.ts).
 */
export const relayStream = (options: StreamOptions): RelayStream => {
  const { adaptor, meta } = options;
  const parser = createSseParser();
  // A translating adaptor's translator for this stream; none for a pass-through one (OpenAI's bytes).
  const translate = adaptor.kind === 'translating' ? adaptor.translateStream(meta) : undefined;
  // A provider whose stream is not server-sent events (a binary event stream) decodes its own frames.
  const frames = adaptor.kind === 'translating' ? adaptor.decodeStream?.(meta) : undefined;
  const binary = translate === undefined;
  // The UTF-8 decoder (which keeps a character split between chunks) only for the converted formats.
  const decoder = binary ? undefined : new StringDecoder('utf8');
  const decode = (chunk: Buffer): string => (decoder ? decoder.write(chunk) : chunk.toString('latin1'));
  // Small strings go into Node's shared buffer pool rather than a fresh allocation each.
  const encode = (out: string): Uint8Array => Buffer.from(out, binary ? 'latin1' : 'utf8');
  // The events forwarded before any usage came, as sent: read for local counting if it never comes.
  const pending: string[] = [];
  let usage: Usage | undefined;
  let text = '';
  let done = false;
  // An error event went out (the provider's, or the break's): nothing follows it, no [DONE].
  let errored = false;
  let finished = false;
  // The stream opened (an event that gives the client something); until then nothing is answered.
  let opened = false;
  let refusal: StreamRefused | undefined;

  /** Takes a verdict on an event before the stream opened; false when it refuses the stream. */
  const decide = (verdict: Opening): boolean => {
    if (verdict === 'open') opened = true;
    else if (verdict !== 'wait') {
      refusal = verdict;
      done = true;
    }
    return refusal === undefined;
  };

  const finish = (aborted: boolean) => {
    if (finished) return;
    finished = true;
    if (!usage) {
      const events = createSseParser().feed(utf8Of(pending.join('')));
      for (const event of events) text += choiceText(parseJson(event.data));
    }
    options.onFinish({ usage, text, aborted });
  };

  const passthrough = (event: SseEvent): string => {
    const data = event.data;
    if (!opened && !decide(passThroughOpening(utf8Of(data), adaptor))) return '';
    if (data.trim() === '[DONE]') {
      done = true;
      return sseData('[DONE]');
    }
    if (needsLook(data)) {
      const chunk = parseJson(utf8Of(data)) as
        { usage?: unknown; choices?: unknown; error?: unknown } | undefined;
      // The provider's error mid-stream (`{"error":{…}}`, no choices): passed on as OpenAI's error
      // event, scrubbed, rather than dropped like a keep-alive (the client must not take the
      // answer for complete).
      const error = chunk?.error !== undefined ? adaptor.parseError(chunk) : undefined;
      if (error) {
        errored = true;
        done = true;
        return latin1Of(sseData(JSON.stringify({ error: streamError(error, meta) })));
      }
      const found = readUsage(chunk?.usage);
      if (found && found.total_tokens > 0) usage = found;
      const noChoices = !Array.isArray(chunk?.choices) || chunk.choices.length === 0;
      if (noChoices && (!found || !options.clientWantsUsage)) return '';
      if (found && chunk && options.dollarsOf) {
        chunk.usage = { ...(chunk.usage as object), cost: options.dollarsOf(found) };
        const out = latin1Of(sseData(JSON.stringify(chunk)));
        if (!usage) pending.push(out);
        return out;
      }
    }
    const out = sseData(data);
    if (!usage) pending.push(out);
    return out;
  };

  const converted = (event: SseEvent): string => {
    if (!translate || refusal || errored) return '';
    const step = translate(event);
    if (!opened && !decide(translatedOpening(event.data, step))) return '';
    if (step.usage) usage = step.usage;
    if (step.text) text += step.text;
    if (step.done) done = true;
    const out = step.chunks.map((chunk) => sseData(JSON.stringify(chunk))).join('');
    if (!step.error) return out;
    errored = true;
    done = true;
    return out + sseData(JSON.stringify({ error: streamError(step.error, meta) }));
  };

  const render = (events: readonly SseEvent[]): string => {
    let out = '';
    for (const event of events) if (!done || !binary) out += binary ? passthrough(event) : converted(event);
    return out;
  };

  // OpenAI format: whole events are cut from the text as it comes. Runs of plain events go out as
  // they came; only the others (usage, no choices, [DONE], several lines) go through the parser.
  // A stream framed with CRLF goes through the parser whole.
  let carry = '';
  let crlf = false;
  // The last forward answered the start of its chunk exactly as it came (sent without a copy).
  let verbatim = false;
  const forward = (text: string): string => {
    verbatim = false;
    if (crlf || text.includes('\r')) {
      crlf = true;
      const all = carry + text;
      carry = '';
      return render(parser.feed(all));
    }
    const fresh = carry === '';
    carry += text;
    const last = carry.lastIndexOf('\n\n');
    if (last === -1) return '';
    const complete = carry.slice(0, last + 2);
    carry = carry.slice(last + 2);
    let out = '';
    let run = 0;
    for (let start = 0; start < complete.length && !done;) {
      const end = complete.indexOf('\n\n', start);
      const data = singleData(complete, start, end);
      const plain = isPlain(data);
      // Before the stream opened, a plain event is read once to tell whether it opens it.
      if (!opened && plain && data !== undefined && !decide(passThroughOpening(utf8Of(data), adaptor)))
        return '';
      if (!plain) {
        const plain = complete.slice(run, start);
        if (!usage && plain !== '') pending.push(plain);
        out +=
          plain +
          (data === undefined
            ? render(parser.feed(complete.slice(start, end + 2)))
            : passthrough({ event: '', data }));
        run = end + 2;
      }
      start = end + 2;
    }
    if (done) return out;
    const plain = run === 0 ? complete : complete.slice(run);
    if (!usage && plain !== '') pending.push(plain);
    verbatim = fresh && run === 0;
    return out + plain;
  };

  const closing = (): string => {
    let out = binary && carry !== '' ? render(parser.feed(carry)) : '';
    carry = '';
    out += render(frames ? frames.end() : parser.end());
    if (errored) return out;
    if (!binary && options.clientWantsUsage && usage)
      out += sseData(
        JSON.stringify({
          object: 'chat.completion.chunk',
          model: meta.model,
          choices: [],
          usage: options.dollarsOf ? { ...usage, cost: options.dollarsOf(usage) } : usage,
        }),
      );
    if (!binary || !done) out += sseData('[DONE]');
    return out;
  };

  const body = options.upstream.body;

  /** The client's bytes for the upstream's `chunk`; with `last`, the stream's closing too. */
  const step = (chunk: Buffer, last: boolean): Uint8Array | undefined => {
    let out = frames
      ? render(frames.feed(chunk))
      : binary
        ? forward(decode(chunk))
        : render(parser.feed(decode(chunk)));
    if (last) {
      source.done = true;
      if (refusal === undefined) out += closing();
      // A stream that never opened is refused by open(): nothing answered, nothing billed.
      if (!opened) return undefined;
      const bytes = encode(out);
      finish(false);
      return bytes;
    }
    if (out !== '') return verbatim ? chunk.subarray(0, out.length) : encode(out);
    return undefined;
  };

  /**
   * The upstream failed mid-stream (cut, silent past its idle timeout, unreadable): the client's
   * stream ends with OpenAI's error event (no [DONE]: the answer is not complete), billed for what came.
   */
  const broken = (error: unknown): Uint8Array | undefined => {
    source.done = true;
    if (!opened) return undefined;
    finish(false);
    if (errored) return undefined;
    errored = true;
    const event = openAiErrorEvent(breakInfo(streamBreak(error)));
    return encode(binary ? latin1Of(event) : event);
  };

  // Before the stream opened: the upstream's bytes (a JSON error body sent as a stream is read from
  // them) and the client's bytes made so far (held until it opens).
  const unopened: Buffer[] = [];
  let unopenedSize = 0;
  const head: Uint8Array[] = [];
  let held: Uint8Array | undefined;

  /** One upstream chunk before the stream opened: the answer once it opens, undefined to read on. */
  const tryOpen = (chunk: Buffer, last: boolean): Uint8Array | RelayStream | undefined => {
    unopened.push(chunk);
    unopenedSize += chunk.length;
    let out: Uint8Array | undefined;
    try {
      out = step(chunk, last);
    } catch {
      refusal ??= refusedGarbage();
    }
    if (!refusal && !opened && (last || unopenedSize > OPENING_LIMIT_BYTES))
      refusal = endedUnopened(unopened, adaptor, !last);
    if (refusal) {
      source.done = true;
      options.abortUpstream();
      throw refusal;
    }
    if (out) head.push(out);
    if (!opened) return undefined;
    unopened.length = 0;
    const first = head.length <= 1 ? head[0] : Buffer.concat(head);
    head.length = 0;
    if (source.done) return first ?? NO_BYTES;
    held = first;
    return source;
  };

  const opening = async (): Promise<Uint8Array | RelayStream> => {
    for (;;) {
      const chunk = await body.next();
      const answer = tryOpen(chunk ?? NO_BYTES, chunk === undefined || body.ended);
      if (answer) return answer;
    }
  };

  // `done` is a plain property, set as the stream closes. A getter in this literal would give every
  // stream's object a hidden class of its own, kept in the old generation, and with it this whole
  // closure (the request, the upstream answer, the text) until the next full collection.
  const source: RelayStream = {
    done: false,
    open: () => {
      const all = body.whole();
      return (all === undefined ? undefined : tryOpen(all, true)) ?? opening();
    },
    whole: () => {
      const all = body.whole();
      if (all === undefined) return undefined;
      try {
        return step(all, true);
      } catch (error) {
        return broken(error);
      }
    },
    next: async () => {
      if (held !== undefined) {
        const first = held;
        held = undefined;
        return first;
      }
      if (source.done) return undefined;
      try {
        for (;;) {
          const chunk = await body.next();
          // At the end, or when the end came with these bytes, the closing goes out as the last chunk.
          const out = step(chunk ?? NO_BYTES, chunk === undefined || body.ended);
          if (out || source.done) return out;
        }
      } catch (error) {
        return broken(error);
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
