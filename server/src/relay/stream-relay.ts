import { StringDecoder } from 'node:string_decoder';
import { createSseParser, sseData } from '../lib/sse.js';
import type { Adaptor, RelayRequestMeta, SseEvent, Usage } from './adaptors/adaptor.js';
import { choiceText, readUsage } from './adaptors/openai-adaptor.js';
import type { ChunkSource } from './relay-response.js';
import { nextChunk, type UpstreamResponse } from './upstream.js';

export interface StreamOutcome {
  readonly usage: Usage | undefined;
  /** Generated text seen in the stream (for local counting when usage never came). */
  readonly text: string;
  /** The client went away before the end. */
  readonly aborted: boolean;
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
 * The data of each event when every event of the block is one plain `data: ` line of an OpenAI
 * chunk that needs no look (see needsLook), else undefined (then the block goes through the parser).
 */
const plainPayloads = (block: string): string[] | undefined => {
  if (block.includes('\r') || block.includes('[DONE]')) return undefined;
  const payloads: string[] = [];
  for (let start = 0; start < block.length;) {
    const end = block.indexOf('\n\n', start);
    const event = block.slice(start, end);
    if (!event.startsWith('data: ') || event.includes('\n')) return undefined;
    const data = event.slice(6);
    if (needsLook(data)) return undefined;
    payloads.push(data);
    start = end + 2;
  }
  return payloads;
};

/** Small strings go into Node's shared buffer pool rather than a fresh allocation each. */
const encode = (text: string): Uint8Array => Buffer.from(text, 'utf8');

/**
 * Relays an upstream SSE stream as it arrives: each complete event is forwarded at once (no
 * buffering beyond a partial line). OpenAI-format streams are forwarded verbatim, except the usage
 * chunk the client did not ask for and chunks with neither choices nor usage; other formats go
 * through the adaptor. The stream always ends with `data: [DONE]`.
 */
export const relayStream = (options: StreamOptions): ChunkSource => {
  const { adaptor, meta } = options;
  const parser = createSseParser();
  const decoder = new StringDecoder('utf8');
  const state = adaptor.createStreamState(meta);
  const pending: string[] = [];
  let usage: Usage | undefined;
  let text = '';
  let done = false;
  let finished = false;

  const finish = (aborted: boolean) => {
    if (finished) return;
    finished = true;
    if (!usage) for (const data of pending) text += choiceText(safeParse(data));
    options.onFinish({ usage, text, aborted });
  };

  const passthrough = (event: SseEvent): string => {
    const data = event.data;
    if (data.trim() === '[DONE]') {
      done = true;
      return sseData('[DONE]');
    }
    if (needsLook(data)) {
      const chunk = safeParse(data) as { usage?: unknown; choices?: unknown } | undefined;
      const found = readUsage(chunk?.usage);
      if (found && found.total_tokens > 0) usage = found;
      const noChoices = !Array.isArray(chunk?.choices) || chunk.choices.length === 0;
      if (noChoices && (!found || !options.clientWantsUsage)) return '';
    }
    if (!usage) pending.push(data);
    return sseData(data);
  };

  const converted = (event: SseEvent): string => {
    const step = adaptor.mapStreamEvent(event, state, meta);
    if (step.usage) usage = step.usage;
    if (step.text) text += step.text;
    if (step.done) done = true;
    return step.chunks.map((chunk) => sseData(JSON.stringify(chunk))).join('');
  };

  const render = (events: readonly SseEvent[]): string => {
    let out = '';
    for (const event of events)
      if (!done || !adaptor.openAiFormat) out += adaptor.openAiFormat ? passthrough(event) : converted(event);
    return out;
  };

  // OpenAI format: whole events are cut from the text as it comes; plain ones go out as they came.
  let carry = '';
  const forward = (text: string): string => {
    carry += text;
    const end = carry.lastIndexOf('\n\n');
    if (end === -1) return '';
    const complete = carry.slice(0, end + 2);
    carry = carry.slice(end + 2);
    if (done) return '';
    const payloads = plainPayloads(complete);
    if (!payloads) return render(parser.feed(complete));
    if (!usage) pending.push(...payloads);
    return complete;
  };

  const closing = (): string => {
    let out = adaptor.openAiFormat ? render(parser.feed(carry)) : '';
    carry = '';
    out += render(parser.end());
    if (!adaptor.openAiFormat && options.clientWantsUsage && usage)
      out += sseData(
        JSON.stringify({ object: 'chat.completion.chunk', model: meta.model, choices: [], usage }),
      );
    if (!adaptor.openAiFormat || !done) out += sseData('[DONE]');
    return out;
  };

  let closed = false;
  return {
    next: async () => {
      if (closed) return undefined;
      try {
        for (;;) {
          const chunk = await nextChunk(options.upstream.body);
          if (chunk === undefined) {
            closed = true;
            const last = encode(closing());
            finish(false);
            return last;
          }
          const decoded = decoder.write(chunk);
          const out = adaptor.openAiFormat ? forward(decoded) : render(parser.feed(decoded));
          if (out !== '') return encode(out);
        }
      } catch {
        closed = true;
        finish(false);
        return encode(sseData('[DONE]'));
      }
    },
    cancel: () => {
      closed = true;
      options.abortUpstream();
      finish(true);
    },
  };
};

const safeParse = (data: string): unknown => {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
};
