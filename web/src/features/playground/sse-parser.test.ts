import { describe, expect, it } from 'vitest';
import { createSseParser, type SseEvent } from './sse-parser.js';

const STREAM =
  ': keep-alive\n\n' +
  'event: message_start\ndata: {"type":"message_start"}\n\n' +
  'data: {"a":1}\r\n\r\n' +
  'data: first\ndata:second\nid: 7\nretry: 100\n\n' +
  'event: ping\n\n' +
  'data: [DONE]\n\n';

const EXPECTED: SseEvent[] = [
  { event: 'message_start', data: '{"type":"message_start"}' },
  { event: 'message', data: '{"a":1}' },
  { event: 'message', data: 'first\nsecond' },
  { event: 'message', data: '[DONE]' },
];

const parseInPieces = (text: string, size: number): SseEvent[] => {
  const parser = createSseParser();
  const events: SseEvent[] = [];
  for (let index = 0; index < text.length; index += size)
    events.push(...parser.push(text.slice(index, index + size)));
  return [...events, ...parser.end()];
};

describe('createSseParser', () => {
  it('reads events, names, joined data lines and CRLF, skipping comments, ids and events without data', () => {
    expect(parseInPieces(STREAM, STREAM.length)).toEqual(EXPECTED);
  });

  it('gives the same events whatever the chunking, even a CRLF split between pushes', () => {
    for (let size = 1; size <= 12; size += 1)
      expect(parseInPieces(STREAM, size), `size ${size}`).toEqual(EXPECTED);
  });

  it('dispatches an event the stream ended without a blank line', () => {
    const parser = createSseParser();
    expect(parser.push('data: {"b":2}')).toEqual([]);
    expect(parser.end()).toEqual([{ event: 'message', data: '{"b":2}' }]);
  });

  it('ends lines at a lone CR', () => {
    expect(parseInPieces('data: x\r\rdata: y\r\r', 3)).toEqual([
      { event: 'message', data: 'x' },
      { event: 'message', data: 'y' },
    ]);
  });
});
