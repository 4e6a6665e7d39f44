import { StringDecoder } from 'node:string_decoder';
import { createSseParser, sseData } from '../../lib/sse.js';
import type { Adaptor, RelayRequestMeta, SseEvent, UpstreamErrorInfo, Usage } from '../providers/adaptor.js';
import { choiceText, readUsage } from '../providers/openai-usage.js';
import type { ChunkSource } from '../pipeline/relay-response.js';
import type { UpstreamResponse } from '../upstream/upstream.js';
import { scrub } from '../pipeline/upstream-error.js';
import { parseJson } from '@sluice/contract/parse-json';

export interface StreamOutcome {
  readonly usage: Usage | undefined;
  /** Generated text seen in the stream (for local counting when usage never came). */
  readonly text: string;
  /** The client went away before the end. */
  readonly aborted: boolean;
}

/** A relayed stream: read chunk by chunk, or at once when the upstream's answer is already whole. */
export interface RelayStream extends ChunkSource {
  /** The whole answer for the client when the upstream's stream has already ended, else undefined. */
  whole(): Uint8Array | undefined;
}

export interface StreamOptions {
  readonly adaptor: Adaptor;
  readonly meta: RelayRequestMeta;
  readonly upstream: UpstreamResponse;
  /** The client asked for usage itself; otherwise the usage chunk Sluice asked for is dropped. */
  readonly clientWantsUsage: boolean;
  readonly abortUpstream: () => void;
  readonly onFinish: (outcome: StreamOutcome) => void;
}

const USAGE_OBJECT = /"usage"\s*:\s*\{/;
const NO_CHOICES = /"choices"\s*:\s*\[\s*\]/;

/**
 * Whether an OpenAI chunk must be parsed: it carries a usage object, or has no choices (to drop, or
 * to keep as the usage the client asked for). OpenAI sends `"usage":null` in every chunk of a stream
 * that asked for usage; those pass untouched, unparsed.
 */
const needsLook = (data: string): boolean =>
  USAGE_OBJECT.test(data) || !data.includes('"choices"') || NO_CHOICES.test(data);

/**
 * The event `block.slice(start, end)`: its data when it is one `data: ` line, undefined for anything
 * else (several lines, other fields, comments), which goes through the SSE parser.
 */
const singleData = (block: string, start: number, end: number): string | undefined => {
  if (!block.startsWith('data: ', start)) return undefined;
  const newline = block.indexOf('\n', start);
  return newline !== -1 && newline < end ? undefined : block.slice(start + 6, end);
};

/** A `data:` payload that goes to the client exactly as it came: an OpenAI chunk needing no look. */
const isPlain = (data: string | undefined): boolean =>
  data !== undefined && data !== '[DONE]' && !needsLook(data);

/**
 * An OpenAI stream is handled as latin1 text, one character per byte: its framing is ASCII, so
 * events are cut and checked on it as they are, and the bytes go back out unchanged without a
 * UTF-8 decode and encode. Only the events that are parsed are decoded as UTF-8.
 */
const utf8Of = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');
/** The other way: text Sluice wrote, as the latin1 byte string a pass-through stream is made of. */
const latin1Of = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

const NO_BYTES = Buffer.alloc(0);

/**
 * Relays an upstream SSE stream as it arrives: each complete event is forwarded at once (no
 * buffering beyond a partial line). OpenAI-format streams are forwarded verbatim, except the usage
 * chunk the client did not ask for and chunks with neither choices nor usage; other formats go
 * through the adaptor. The stream always ends with `data: [DONE]`.
 */
export const relayStream = (options: StreamOptions): RelayStream => {
  const { adaptor, meta } = options;
  const parser = createSseParser();
  // A translating adaptor's translator for this stream; none for a pass-through one (OpenAI's bytes).
  const translate = adaptor.kind === 'translating' ? adaptor.translateStream(meta) : undefined;
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
  let finished = false;

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
      if (error) return latin1Of(sseData(JSON.stringify({ error: streamError(error, meta) })));
      const found = readUsage(chunk?.usage);
      if (found && found.total_tokens > 0) usage = found;
      const noChoices = !Array.isArray(chunk?.choices) || chunk.choices.length === 0;
      if (noChoices && (!found || !options.clientWantsUsage)) return '';
    }
    const out = sseData(data);
    if (!usage) pending.push(out);
    return out;
  };

  const converted = (event: SseEvent): string => {
    if (!translate) return '';
    const step = translate(event);
    if (step.usage) usage = step.usage;
    if (step.text) text += step.text;
    if (step.done) done = true;
    const out = step.chunks.map((chunk) => sseData(JSON.stringify(chunk))).join('');
    return step.error ? out + sseData(JSON.stringify({ error: streamError(step.error, meta) })) : out;
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
      if (!isPlain(data)) {
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
    out += render(parser.end());
    if (!binary && options.clientWantsUsage && usage)
      out += sseData(
        JSON.stringify({ object: 'chat.completion.chunk', model: meta.model, choices: [], usage }),
      );
    if (!binary || !done) out += sseData('[DONE]');
    return out;
  };

  const body = options.upstream.body;

  /** The client's bytes for the upstream's `chunk`; with `last`, the stream's closing too. */
  const step = (chunk: Buffer, last: boolean): Uint8Array | undefined => {
    const decoded = decode(chunk);
    let out = binary ? forward(decoded) : render(parser.feed(decoded));
    if (last) {
      source.done = true;
      out += closing();
      const bytes = encode(out);
      finish(false);
      return bytes;
    }
    if (out !== '') return verbatim ? chunk.subarray(0, out.length) : encode(out);
    return undefined;
  };

  /** The upstream failed mid-stream: the client's stream ends here, billed for what came. */
  const broken = (): Uint8Array => {
    source.done = true;
    finish(false);
    return encode(sseData('[DONE]'));
  };

  // `done` is a plain property, set as the stream closes. A getter in this literal would give every
  // stream's object a hidden class of its own, kept in the old generation, and with it this whole
  // closure (the request, the upstream answer, the text) until the next full collection.
  const source: RelayStream = {
    done: false,
    whole: () => {
      const all = body.whole();
      if (all === undefined) return undefined;
      try {
        return step(all, true);
      } catch {
        return broken();
      }
    },
    next: async () => {
      if (source.done) return undefined;
      try {
        for (;;) {
          const chunk = await body.next();
          // At the end, or when the end came with these bytes, the closing goes out as the last chunk.
          const out = step(chunk ?? NO_BYTES, chunk === undefined || body.ended);
          if (out) return out;
        }
      } catch {
        return broken();
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

/** An error the provider reported mid-stream, as OpenAI sends one: every field without the channel's secrets. */
const streamError = (error: UpstreamErrorInfo, meta: RelayRequestMeta) => ({
  message: scrub(error.message, meta.channel),
  type: scrub(error.type || 'upstream_error', meta.channel),
  param: scrub(error.param ?? '', meta.channel),
  code: error.code ? scrub(error.code, meta.channel) : null,
});
