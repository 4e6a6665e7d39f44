import { StringDecoder } from 'node:string_decoder';
import type { SseEvent, StreamDecoder } from '../adaptor.js';

/** The event the decoder makes of a `meta:` field, just before the event that carried it. */
export const ZHIPU_META_EVENT = 'meta';

/**
 * Reads Zhipu's v3 `sse-invoke` stream: server-sent events (`event:`, `id:`, `data:` lines, a blank
 * line between events) whose last, `event: finish`, carries a `meta:` field with the task's usage.
 * A standard parser drops that field; this one gives it as an event of its own, named `meta`, before
 * the event that carried it. Lines and characters may be split anywhere between chunks.
 */
export const createZhipuV3Decoder = (): StreamDecoder => {
  const utf8 = new StringDecoder('utf8');
  let carry = '';
  let event = '';
  let data: string[] = [];
  let meta = '';

  const dispatch = (out: SseEvent[]): void => {
    if (meta !== '') out.push({ event: ZHIPU_META_EVENT, data: meta });
    if (data.length > 0 || event !== '') out.push({ event, data: data.join('\n') });
    event = '';
    data = [];
    meta = '';
  };

  const line = (text: string, out: SseEvent[]): void => {
    if (text === '') return dispatch(out);
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    const value = colon === -1 ? '' : text.slice(colon + (text[colon + 1] === ' ' ? 2 : 1));
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'meta') meta = value;
  };

  const lines = (text: string, last: boolean): SseEvent[] => {
    const all = carry + text;
    const out: SseEvent[] = [];
    let start = 0;
    for (let newline = all.indexOf('\n'); newline !== -1; newline = all.indexOf('\n', start)) {
      line(all.slice(start, newline > start && all[newline - 1] === '\r' ? newline - 1 : newline), out);
      start = newline + 1;
    }
    carry = all.slice(start);
    if (last) {
      if (carry !== '') line(carry.replace(/\r$/, ''), out);
      carry = '';
      dispatch(out);
    }
    return out;
  };

  return {
    feed: (chunk) => lines(utf8.write(chunk), false),
    end: () => lines(utf8.end(), true),
  };
};
