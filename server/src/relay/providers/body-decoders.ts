import type { SseEvent, StreamDecoder } from './adaptor.js';

/**
 * A provider that answers a stream request with one JSON body (DeepL, PaLM: one call, emitted as one
 * chunk): the whole body, once it ended, as one event.
 */
export const wholeBodyDecoder = (): StreamDecoder => {
  const pieces: Buffer[] = [];
  return {
    feed: (chunk) => {
      pieces.push(chunk);
      return [];
    },
    end: () => {
      const text = Buffer.concat(pieces).toString('utf8').trim();
      pieces.length = 0;
      // A proxy that wraps the body as one server-sent event (`data: {…}`) reads the same.
      const data = text.startsWith('data:') ? text.slice(5).trim() : text;
      return data === '' ? [] : [{ event: '', data }];
    },
  };
};

/** A stream of JSON lines (Cohere's v1 chat): one event per non-empty line, split anywhere. */
export const jsonLinesDecoder = (): StreamDecoder => {
  let carry = Buffer.alloc(0);
  const lines = (bytes: Buffer, last: boolean): SseEvent[] => {
    const out: SseEvent[] = [];
    let start = 0;
    for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
      const line = bytes.subarray(start, newline).toString('utf8').trim();
      if (line !== '') out.push({ event: '', data: line });
      start = newline + 1;
    }
    carry = Buffer.from(bytes.subarray(start));
    if (last) {
      const rest = carry.toString('utf8').trim();
      if (rest !== '') out.push({ event: '', data: rest });
      carry = Buffer.alloc(0);
    }
    return out;
  };
  return {
    feed: (chunk) => lines(carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk, false),
    end: () => lines(carry, true),
  };
};
