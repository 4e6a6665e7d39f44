/** One server-sent event: its `event:` name ('message' when it has none) and its joined `data:` lines. */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

export interface SseParser {
  /** Feeds decoded text; answers the events it completed. */
  push(text: string): SseEvent[];
  /** The stream ended: answers the last event if it was not closed by a blank line. */
  end(): SseEvent[];
}

/**
 * An incremental parser of `text/event-stream` (the WHATWG rules the three client formats use):
 * lines end with LF, CRLF or CR (also split across pushes); an event ends at a blank line; `data:`
 * lines are joined with LF; comments (`:`), `id:` and `retry:` are skipped; one space after the colon
 * is dropped. An event without data is not dispatched.
 */
export const createSseParser = (): SseParser => {
  let buffer = '';
  let name = '';
  let data: string[] = [];

  const dispatch = (out: SseEvent[]) => {
    if (data.length > 0) out.push({ event: name || 'message', data: data.join('\n') });
    name = '';
    data = [];
  };

  const line = (text: string, out: SseEvent[]) => {
    if (text === '') return dispatch(out);
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') name = value;
  };

  return {
    push: (text) => {
      buffer += text;
      const out: SseEvent[] = [];
      for (;;) {
        const match = /\r\n|\r|\n/.exec(buffer);
        if (!match) break;
        // A CR at the very end may be the first half of a CRLF still on its way.
        if (match[0] === '\r' && match.index === buffer.length - 1) break;
        line(buffer.slice(0, match.index), out);
        buffer = buffer.slice(match.index + match[0].length);
      }
      return out;
    },
    end: () => {
      const out: SseEvent[] = [];
      if (buffer !== '') line(buffer.replace(/\r$/, ''), out);
      buffer = '';
      dispatch(out);
      return out;
    },
  };
};
