import { readFileSync, readdirSync } from 'node:fs';
import type { Adaptor, RelayRequestMeta } from '../relay/providers/adaptor.js';
import { relayStream, type StreamOutcome } from '../relay/stream/stream-relay.js';
import { UpstreamBody } from '../relay/upstream/upstream-body.js';

/** One recorded upstream stream, as its bytes came. */
export interface Recording {
  readonly name: string;
  readonly bytes: Buffer;
}

/**
 * A provider's recordings, plain files beside its code (`<folder>/<folder>-*.recorded.*`, outside the
 * build): its streams, an answer, an error body and a stream broken by an error. `{{key}}` and
 * `{{base_url}}` in the error recordings stand for the channel's key and base URL.
 */
export interface Recordings {
  /** `<folder>-stream*.recorded.sse`, by name. */
  readonly streams: readonly Recording[];
  /** `<folder>-response.recorded.json`: a non-streamed answer. */
  readonly response: unknown;
  /** `<folder>-error.recorded.json`: the raw error body, quoting the key and base URL given. */
  readonly error: (key: string, baseUrl: string) => string;
  /** `<folder>-mid-stream-error.recorded.sse`: a stream that ends with the provider's error. */
  readonly midStreamError: (key: string, baseUrl: string) => Buffer;
}

const fill = (text: string, key: string, baseUrl: string): string =>
  text.replaceAll('{{key}}', key).replaceAll('{{base_url}}', baseUrl);

/**
 * Reads the recordings of the provider folder `folder` (a directory URL ending in `/`), named after
 * the folder, or after `prefix` (a folder serving two wire formats: `vertex-claude`, `vertex-gemini`).
 */
export const loadRecordings = (
  folder: URL,
  prefix = folder.pathname.split('/').filter(Boolean).at(-1) ?? '',
): Recordings => {
  const read = (name: string): string => readFileSync(new URL(name, folder), 'utf8');
  const streams = readdirSync(folder)
    .filter((name) => name.startsWith(`${prefix}-stream`) && name.endsWith('.recorded.sse'))
    .sort()
    .map((name) => ({ name, bytes: readFileSync(new URL(name, folder)) }));
  const error = read(`${prefix}-error.recorded.json`);
  const midStream = read(`${prefix}-mid-stream-error.recorded.sse`);
  return {
    streams,
    response: JSON.parse(read(`${prefix}-response.recorded.json`)) as unknown,
    error: (key, baseUrl) => fill(error, key, baseUrl),
    midStreamError: (key, baseUrl) => Buffer.from(fill(midStream, key, baseUrl)),
  };
};

/** What the client got from the stream relay, and every outcome it reported (exactly one expected). */
export interface Relayed {
  readonly out: string;
  readonly outcomes: readonly StreamOutcome[];
}

const relayOf = (
  adaptor: Adaptor,
  meta: RelayRequestMeta,
  body: UpstreamBody,
  clientWantsUsage: boolean,
  outcomes: StreamOutcome[],
) =>
  relayStream({
    adaptor,
    meta,
    upstream: { status: 200, headers: {}, body },
    clientWantsUsage,
    abortUpstream: () => undefined,
    onFinish: (outcome) => outcomes.push(outcome),
  });

/**
 * Relays `pieces` through the real stream relay, one piece per turn of the event loop (as separate
 * reads from a socket), the way stream-relay.test.ts feeds its upstream body. The client's bytes are
 * decoded once at the end, so a character the relay split between two writes is whole again.
 */
export const relayPieces = async (
  adaptor: Adaptor,
  meta: RelayRequestMeta,
  pieces: readonly Buffer[],
  clientWantsUsage: boolean,
): Promise<Relayed> => {
  const body = new UpstreamBody();
  const feed = (index: number): void => {
    const piece = pieces[index];
    if (piece === undefined) body.end();
    else {
      body.push(piece);
      setImmediate(() => feed(index + 1));
    }
  };
  setImmediate(() => feed(0));
  const outcomes: StreamOutcome[] = [];
  const source = relayOf(adaptor, meta, body, clientWantsUsage, outcomes);
  const out: Buffer[] = [];
  for (let chunk = await source.next(); chunk !== undefined; chunk = await source.next())
    out.push(Buffer.from(chunk));
  return { out: Buffer.concat(out).toString('utf8'), outcomes };
};

/** Relays a stream that had already ended when the relay started: answered at once by `whole()`. */
export const relayEnded = (
  adaptor: Adaptor,
  meta: RelayRequestMeta,
  bytes: Buffer,
  clientWantsUsage: boolean,
): Relayed => {
  const body = new UpstreamBody();
  body.push(bytes);
  body.end();
  const outcomes: StreamOutcome[] = [];
  const whole = relayOf(adaptor, meta, body, clientWantsUsage, outcomes).whole();
  return { out: Buffer.from(whole ?? []).toString('utf8'), outcomes };
};

/** `bytes` cut every `size` bytes, wherever that falls (inside a line, a JSON string, a character). */
export const piecesOf = (bytes: Buffer, size: number): Buffer[] => {
  const out: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += size) out.push(bytes.subarray(start, start + size));
  return out;
};

/** Every piece size up to 96 bytes, then sizes growing by an eighth; always 1, 2, 3, 7 and the whole. */
export const pieceSizes = (length: number): number[] => {
  const sizes = new Set([1, 2, 3, 7, length]);
  for (let size = 1; size <= Math.min(96, length); size += 1) sizes.add(size);
  for (let size = 96; size < length; size = Math.ceil(size * 1.125)) sizes.add(size);
  return [...sizes].filter((size) => size >= 1 && size <= length).sort((a, b) => a - b);
};

/** The offsets that fall inside a multi-byte UTF-8 character (before a continuation byte). */
export const insideCharacters = (bytes: Buffer): number[] =>
  [...bytes.keys()].filter((offset) => ((bytes[offset] ?? 0) & 0xc0) === 0x80);

/** The client's events: what each `data: ` line carries, in order ('[DONE]' as it is). */
export const dataOf = (out: string): string[] =>
  out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (line.startsWith('data: ') ? line.slice(6) : `not a data line: ${line}`));

/** Every `delta.content` of the client's chunks, joined. */
export const contentOf = (events: readonly string[]): string =>
  events
    .filter((data) => data !== '[DONE]')
    .map((data) => JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] })
    .flatMap((chunk) => chunk.choices ?? [])
    .map((choice) => (typeof choice.delta?.content === 'string' ? choice.delta.content : ''))
    .join('');

export const isJson = (data: string): boolean => {
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
};

/** The client's error events (OpenAI's `{"error": …}`), parsed. */
export const errorEvents = (events: readonly string[]) =>
  events.filter((data) => data.startsWith('{"error"')).map((data) => JSON.parse(data) as { error: unknown });

/** A value's string leaves, each followed by `quote`. */
const quoted = (value: unknown, quote: string): unknown => {
  if (typeof value === 'string') return `${value} ${quote}`;
  if (Array.isArray(value)) return value.map((item) => quoted(item, quote));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, quoted(item, quote)]));
};

/**
 * An error body whose `error` object quotes `quote` in every string field (message, type, code,
 * status, param…); what lies beside it (Anthropic's `type: 'error'`) is left as it is.
 */
export const quotedInEveryField = (body: unknown, quote: string): unknown =>
  typeof body === 'object' && body !== null && 'error' in body
    ? { ...body, error: quoted(body.error, quote) }
    : quoted(body, quote);

const nested = (depth: number, wrap: (inner: unknown) => unknown): unknown => {
  let value: unknown = 'garbage';
  for (let level = 0; level < depth; level += 1) value = wrap(value);
  return value;
};

/** Values JSON.parse can give (and undefined, for a body that was not JSON) that are no provider's error. */
export const JUNK_ERROR_BODIES: readonly unknown[] = [
  undefined,
  null,
  0,
  42,
  -1.5,
  true,
  false,
  '',
  'Internal Server Error',
  '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>',
  [],
  [1, 2, 3],
  [null],
  [[]],
  [{}],
  ['error'],
  [{ error: 5 }],
  {},
  { error: 5 },
  { error: {} },
  { error: null },
  { error: [] },
  { error: true },
  { error: '' },
  { error: { message: 5 } },
  { error: { message: '' } },
  { error: { message: null, type: 'x', code: 'y' } },
  { error: { message: ['a'], status: 'INTERNAL', code: 500 } },
  { message: 5 },
  { message: '' },
  { msg: null, err: 0, error_msg: [] },
  { header: 5 },
  { header: { message: 7 } },
  { response: { error: 'x' } },
  { response: { error: { message: {} } } },
  { type: 'error' },
  { type: 'error', error: { type: 'overloaded_error' } },
  { type: 'error', error: { type: 'overloaded_error', message: '' } },
  { candidates: [] },
  { choices: [] },
  nested(400, (inner) => ({ error: inner })),
  nested(400, (inner) => ({ error: { message: inner } })),
  nested(400, (inner) => [inner]),
  nested(400, (inner) => ({ a: [inner, null], b: {} })),
];

/** Raw bodies that are no provider's error: junk JSON, truncated JSON, HTML and plain text. */
export const junkRawBodies = (key: string, baseUrl: string): string[] => [
  '',
  ' ',
  'not json at all',
  `<!DOCTYPE html><html><body><h1>401 Unauthorized</h1><p>key ${key} at ${baseUrl}</p></body></html>`,
  `{"error":{"message":"bad key ${key}`,
  `upstream connect error or disconnect/reset before headers. reset reason: ${key}`,
  ...JUNK_ERROR_BODIES.filter((body) => body !== undefined).map((body) => JSON.stringify(body)),
];
