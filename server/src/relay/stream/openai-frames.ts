/** The byte-level reading of OpenAI-format streams (stream-relay.ts): which events must be looked at. */
import type { RelayRequestMeta, UpstreamErrorInfo } from '../providers/adaptor.js';
import { scrub } from '../pipeline/upstream-error.js';

const USAGE_OBJECT = /"usage"\s*:\s*\{/;
const NO_CHOICES = /"choices"\s*:\s*\[\s*\]/;

/**
 * Whether an OpenAI chunk must be parsed: it carries a usage object, or has no choices (to drop, or
 * to keep as the usage the client asked for). OpenAI sends `"usage":null` in every chunk of a stream
 * that asked for usage; those pass untouched, unparsed.
 */
export const needsLook = (data: string): boolean =>
  USAGE_OBJECT.test(data) || !data.includes('"choices"') || NO_CHOICES.test(data);

/**
 * The event `block.slice(start, end)`: its data when it is one `data: ` line, undefined for anything
 * else (several lines, other fields, comments), which goes through the SSE parser.
 */
export const singleData = (block: string, start: number, end: number): string | undefined => {
  if (!block.startsWith('data: ', start)) return undefined;
  const newline = block.indexOf('\n', start);
  return newline !== -1 && newline < end ? undefined : block.slice(start + 6, end);
};

/** A `data:` payload that goes to the client exactly as it came: an OpenAI chunk needing no look. */
export const isPlain = (data: string | undefined): boolean =>
  data !== undefined && data !== '[DONE]' && !needsLook(data);

/**
 * An OpenAI stream is handled as latin1 text, one character per byte: its framing is ASCII, so
 * events are cut and checked on it as they are, and the bytes go back out unchanged without a
 * UTF-8 decode and encode. Only the events that are parsed are decoded as UTF-8.
 */
export const utf8Of = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');
/** The other way: text Sluice wrote, as the latin1 byte string a pass-through stream is made of. */
export const latin1Of = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

/** An error the provider reported mid-stream, as OpenAI sends one: every field without the channel's secrets. */
export const streamError = (error: UpstreamErrorInfo, meta: RelayRequestMeta) => ({
  message: scrub(error.message, meta.channel),
  type: scrub(error.type || 'upstream_error', meta.channel),
  param: scrub(error.param ?? '', meta.channel),
  code: error.code ? scrub(error.code, meta.channel) : null,
});
