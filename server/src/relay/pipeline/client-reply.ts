import { parseJson } from '@sluice/contract/parse-json';
import { createSseParser, type ParsedSseEvent } from '../../lib/sse.js';
import { relayError } from '../../lib/app-error.js';
import type { ClientStreamWriter } from '../clients/client-format.js';
import type { UpstreamErrorInfo } from '../providers/adaptor.js';
import type { ClientCall } from './relay-context.js';
import type { ChunkSource, RelayReply } from './relay-response.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const decoder = new TextDecoder();

/** The hub's mid-stream error event (stream-relay.ts writes OpenAI's `{"error":{…}}`). */
const streamErrorOf = (error: Json): UpstreamErrorInfo => ({
  message: typeof error['message'] === 'string' ? error['message'] : 'the upstream reported an error',
  type: typeof error['type'] === 'string' ? error['type'] : 'upstream_error',
  code: typeof error['code'] === 'string' ? error['code'] : '',
});

/**
 * Feeds the hub's server-sent events (OpenAI chunks, its error event, `[DONE]`) to a client format's
 * writer and answers what the writer wrote. The writer is told the end once, even when the hub's
 * stream ended without its `[DONE]`.
 */
const hubEvents = (writer: ClientStreamWriter) => {
  const parser = createSseParser();
  // One decoder per stream: it keeps a character split between chunks.
  const utf8 = new TextDecoder();
  let ended = false;
  const write = (events: readonly ParsedSseEvent[]): string => {
    let out = '';
    for (const event of events) {
      if (ended) break;
      const data = event.data.trim();
      if (data === '[DONE]') {
        ended = true;
        out += writer.end();
        continue;
      }
      const chunk = parseJson(data);
      if (!isObject(chunk)) continue;
      if (isObject(chunk['error'])) {
        ended = true;
        out += writer.error(streamErrorOf(chunk['error']));
        continue;
      }
      out += writer.chunk(chunk);
    }
    return out;
  };
  return {
    feed: (bytes: Uint8Array): string => write(parser.feed(utf8.decode(bytes, { stream: true }))),
    end: (): string => {
      const out = write(parser.end());
      if (ended) return out;
      ended = true;
      return out + writer.end();
    },
  };
};

/** The hub's stream as the client's: each hub chunk source's bytes through the format's writer. */
const clientStream = (inner: ChunkSource, writer: ClientStreamWriter): ChunkSource => {
  const events = hubEvents(writer);
  const source: ChunkSource = {
    done: false,
    next: async () => {
      for (;;) {
        const bytes = await inner.next();
        let out = bytes === undefined ? '' : events.feed(bytes);
        if (bytes === undefined || inner.done) {
          out += events.end();
          source.done = true;
          return Buffer.from(out);
        }
        if (out !== '') return Buffer.from(out);
      }
    },
    cancel: () => inner.cancel(),
  };
  return source;
};

/** A whole hub body (a stream that had ended, or a JSON answer) as text. */
const textOf = (body: Uint8Array | string): string =>
  typeof body === 'string' ? body : decoder.decode(body);

/**
 * The hub's answer in the client's format: a `chat.completion` through the format's `fromHub`, a
 * stream through its writer, chunk by chunk. Only 2xx answers come here (failures are thrown and
 * said in the client's format by relay-http.ts).
 */
export const inClientFormat = (client: ClientCall, reply: RelayReply): RelayReply => {
  const { format, context } = client;
  const headers = reply.headers;
  const streamed = String(headers['content-type'] ?? '').startsWith('text/event-stream');
  if (streamed) {
    const writer = format.streamWriter(context);
    if (typeof reply.body === 'object' && !(reply.body instanceof Uint8Array))
      return { ...reply, body: clientStream(reply.body, writer) };
    const events = hubEvents(writer);
    const body = Buffer.from(events.feed(Buffer.from(textOf(reply.body))) + events.end());
    return { ...reply, body };
  }
  if (typeof reply.body === 'object' && !(reply.body instanceof Uint8Array))
    throw relayError(502, 'bad_response', 'the upstream answered a stream to a request that asked for none');
  const completion = parseJson(textOf(reply.body));
  if (!isObject(completion))
    throw relayError(502, 'bad_response', 'the upstream answered something that is not JSON');
  headers['content-type'] = 'application/json';
  return { ...reply, body: JSON.stringify(format.fromHub(completion, context)) };
};
