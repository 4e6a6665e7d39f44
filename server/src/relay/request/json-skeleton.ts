/**
 * A large JSON body's skeleton, read without decoding or parsing its large values: a coding agent's
 * chat request is 50k–150k tokens (up to a few hundred KB), nearly all of it the text of a few
 * messages, while the relay needs only its small members (model, stream, stream_options,
 * max_tokens…) and the shape of its messages. The bytes are walked with `indexOf` from quote to
 * quote; only small values are decoded and parsed (JSON.parse, so they are checked as strictly as
 * ever); a large value is kept as its byte span and parsed only if something needs it.
 *
 * Not checked here: the inside of a large string (its escapes and control characters). Such a body
 * goes upstream as the client sent it, and a provider that cannot read it answers its own 400.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Values up to this many bytes are parsed at once; larger ones are left as spans. */
export const SMALL_VALUE_BYTES = 4096;

/** A value's bytes: [start, end). */
export type Span = readonly [number, number];

export interface Skeleton {
  /** The members whose values are small, parsed. */
  readonly fields: Record<string, unknown>;
  /** The members whose values are large, by name: their spans in the bytes. */
  readonly large: ReadonlyMap<string, Span>;
}

class NotPlain extends Error {}

const isSpace = (byte: number | undefined): boolean =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

const bufferOf = (raw: Uint8Array): Buffer =>
  Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);

/** A walker over one body's bytes. */
const walker = (bytes: Buffer) => {
  const skipSpace = (at: number): number => {
    let position = at;
    while (isSpace(bytes[position])) position += 1;
    return position;
  };

  /** The index of the quote that closes the string opened at `open`. */
  const stringEnd = (open: number): number => {
    let from = open + 1;
    for (;;) {
      const quote = bytes.indexOf(QUOTE, from);
      if (quote === -1) throw new NotPlain();
      let backslashes = 0;
      while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) return quote;
      from = quote + 1;
    }
  };

  /** The end of the value that starts at `start` (its first byte, past any space). */
  const valueEnd = (start: number): number => {
    const first = bytes[start];
    if (first === QUOTE) return stringEnd(start) + 1;
    if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
      let depth = 0;
      for (let position = start; position < bytes.length; position += 1) {
        const byte = bytes[position];
        if (byte === QUOTE) position = stringEnd(position);
        else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) depth += 1;
        else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
          depth -= 1;
          if (depth === 0) return position + 1;
        }
      }
      throw new NotPlain();
    }
    let position = start;
    while (position < bytes.length) {
      const byte = bytes[position];
      if (byte === COMMA || byte === CLOSE_OBJECT || byte === CLOSE_ARRAY || isSpace(byte)) break;
      position += 1;
    }
    if (position === start) throw new NotPlain();
    return position;
  };

  const parse = (start: number, end: number): unknown => {
    try {
      return JSON.parse(bytes.toString('utf8', start, end)) as unknown;
    } catch {
      throw new NotPlain();
    }
  };

  /**
   * The members of the object that opens at `open`: each key with its value's span, in order. Ends
   * at the closing brace; answers the index past it.
   */
  const members = (open: number, visit: (key: string, start: number, end: number) => void): number => {
    if (bytes[open] !== OPEN_OBJECT) throw new NotPlain();
    let position = skipSpace(open + 1);
    if (bytes[position] === CLOSE_OBJECT) return position + 1;
    for (;;) {
      if (bytes[position] !== QUOTE) throw new NotPlain();
      const keyEnd = stringEnd(position) + 1;
      const key = parse(position, keyEnd) as string;
      position = skipSpace(keyEnd);
      if (bytes[position] !== COLON) throw new NotPlain();
      const start = skipSpace(position + 1);
      const end = valueEnd(start);
      visit(key, start, end);
      position = skipSpace(end);
      if (bytes[position] === CLOSE_OBJECT) return position + 1;
      if (bytes[position] !== COMMA) throw new NotPlain();
      position = skipSpace(position + 1);
    }
  };

  return { skipSpace, valueEnd, parse, members };
};

/**
 * The skeleton of a body that is one JSON object; undefined when it is not plainly one (the caller
 * then parses it whole, which says what is wrong).
 */
export const readSkeleton = (raw: Uint8Array): Skeleton | undefined => {
  const bytes = bufferOf(raw);
  const walk = walker(bytes);
  const fields: Record<string, unknown> = {};
  const large = new Map<string, Span>();
  try {
    const end = walk.members(walk.skipSpace(0), (key, start, stop) => {
      if (stop - start <= SMALL_VALUE_BYTES) {
        large.delete(key);
        fields[key] = walk.parse(start, stop);
      } else {
        delete fields[key];
        large.set(key, [start, stop]);
      }
    });
    if (walk.skipSpace(end) !== bytes.length) return undefined;
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
  return { fields, large };
};

/**
 * Whether the array at `span` is a non-empty list of objects that each have a string `role` (the
 * chat schema's shape of `messages`), read without parsing the messages' contents.
 */
export const plainMessages = (raw: Uint8Array, span: Span): boolean => {
  const bytes = bufferOf(raw);
  const walk = walker(bytes);
  const [start, end] = span;
  if (bytes[start] !== OPEN_ARRAY) return false;
  try {
    let position = walk.skipSpace(start + 1);
    if (bytes[position] === CLOSE_ARRAY) return false;
    for (;;) {
      let role: unknown;
      position = walk.members(position, (key, from, to) => {
        if (key === 'role') role = to - from <= SMALL_VALUE_BYTES ? walk.parse(from, to) : undefined;
      });
      if (typeof role !== 'string') return false;
      position = walk.skipSpace(position);
      if (bytes[position] === CLOSE_ARRAY) return position + 1 === end;
      if (bytes[position] !== COMMA) return false;
      position = walk.skipSpace(position + 1);
    }
  } catch (error) {
    if (error instanceof NotPlain) return false;
    throw error;
  }
};
