/** One parsed server-sent event. */
export interface ParsedSseEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * An incremental SSE parser: feed it text as it arrives (lines may be split anywhere, \r\n or \n),
 * it answers the complete events. Comments and id/retry fields are ignored.
 */
export const createSseParser = () => {
  let buffer = '';
  let event = '';
  let data: string[] = [];

  const line = (text: string, out: ParsedSseEvent[]): void => {
    if (text === '') {
      if (data.length > 0) out.push({ event, data: data.join('\n') });
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  };

  return {
    feed: (chunk: string): ParsedSseEvent[] => {
      buffer += chunk;
      const out: ParsedSseEvent[] = [];
      let start = 0;
      for (;;) {
        const newline = buffer.indexOf('\n', start);
        if (newline === -1) break;
        const end = newline > start && buffer[newline - 1] === '\r' ? newline - 1 : newline;
        line(buffer.slice(start, end), out);
        start = newline + 1;
      }
      buffer = buffer.slice(start);
      return out;
    },
    /** Ends the stream: an event left without its blank line still counts. */
    end: (): ParsedSseEvent[] => {
      const out: ParsedSseEvent[] = [];
      if (buffer !== '') line(buffer.replace(/\r$/, ''), out);
      buffer = '';
      line('', out);
      return out;
    },
  };
};

/** One `data:` event as sent to clients. */
export const sseData = (payload: string): string => `data: ${payload}\n\n`;
