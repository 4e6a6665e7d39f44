import type { ChannelMeta, PassThroughAdaptor, RelayMode, RelayRequestMeta } from '../adaptor.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import { choiceText, readUsage } from '../openai-usage.js';

const ALL_MODES: readonly RelayMode[] = [
  'chat',
  'completions',
  'embeddings',
  'moderations',
  'images',
  'speech',
  'transcription',
  'translation',
];

/** How an OpenAI-compatible provider builds its URL: the base URL and the client's path. */
export type UrlBuilder = (channel: ChannelMeta, path: string, mode: RelayMode) => string;

export const defaultUrl: UrlBuilder = (channel, path) => `${channel.baseUrl}${path}`;

const ASK_FOR_USAGE = Buffer.from('"stream_options":{"include_usage":true}');
const COMMA = Buffer.from(',');
const NOTHING = Buffer.alloc(0);
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const isJsonSpace = (byte: number | undefined) =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** The client's JSON object with `stream_options` added as its first member (it had none). */
const withUsageAsked = (raw: Uint8Array): Uint8Array | undefined => {
  const open = raw.indexOf(OPEN_BRACE);
  if (open === -1) return undefined;
  let next = open + 1;
  while (isJsonSpace(raw[next])) next += 1;
  const empty = raw[next] === CLOSE_BRACE;
  return Buffer.concat([
    raw.subarray(0, open + 1),
    ASK_FOR_USAGE,
    empty ? NOTHING : COMMA,
    raw.subarray(open + 1),
  ]);
};

/**
 * The body for an OpenAI-compatible upstream: the client's own bytes when they may pass (adding
 * only the request for usage on streams), else `body` serialised with the mapped model. Usage is
 * asked for on every stream the upstream accepts it for; the pipeline strips it for clients that did
 * not ask, and counts locally when it never comes.
 */
export const openAiBody = (
  body: Record<string, unknown>,
  meta: RelayRequestMeta,
  /** False for an upstream that refuses `stream_options` (older Azure API versions). */
  streamOptions = true,
): string | Uint8Array => {
  const wantsUsage = streamOptions && meta.stream && (meta.mode === 'chat' || meta.mode === 'completions');
  if (meta.raw) {
    if (!wantsUsage) return meta.raw;
    const asked = body['stream_options'] === undefined ? withUsageAsked(meta.raw) : undefined;
    if (asked) return asked;
  }
  const out: Record<string, unknown> = { ...body, model: meta.model };
  if (wantsUsage) {
    const options =
      typeof body['stream_options'] === 'object' && body['stream_options'] !== null
        ? body['stream_options']
        : {};
    out['stream_options'] = { ...options, include_usage: true };
  }
  return JSON.stringify(out);
};

export const parseOpenAiResponse = (body: unknown) => ({
  body,
  usage: readUsage((body as { usage?: unknown } | null)?.usage),
  text: choiceText(body),
});

/** The OpenAI adaptor; other OpenAI-compatible providers differ only in URL and extra headers. */
export const createOpenAiAdaptor = (
  url: UrlBuilder = defaultUrl,
  extraHeaders: Readonly<Record<string, string>> = {},
  modes: readonly RelayMode[] = ALL_MODES,
): PassThroughAdaptor => ({
  kind: 'pass-through',
  modes,
  buildRequest: (body, meta) => ({
    url: url(meta.channel, meta.path, meta.mode),
    headers: {
      authorization: `Bearer ${meta.channel.key}`,
      'content-type': 'application/json',
      ...extraHeaders,
    },
    body: openAiBody(body, meta),
  }),
  parseResponse: (body) => parseOpenAiResponse(body),
  parseError: parseOpenAiStyleError,
});
