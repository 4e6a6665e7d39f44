import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../../lib/sse.js';
import type { ClientContext } from '../client-format.js';
import { anthropicClient } from './anthropic-client.js';

const context: ClientContext = {
  model: 'claude-opus-4-1-20250805',
  requestId: 'req1',
  request: {},
  created: 1_750_000_000,
};

const ID = 'chatcmpl-014p7gG3wDgGV9EUtLvnow3U';

/** A hub chunk with one choice. */
const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
) => ({
  id: ID,
  object: 'chat.completion.chunk',
  created: 1_750_000_000,
  model: 'gpt-4.1',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  ...extra,
});

/** The hub's last chunk: usage only. */
const usageChunk = (usage: Record<string, unknown>) => ({
  id: ID,
  object: 'chat.completion.chunk',
  created: 1_750_000_000,
  model: 'gpt-4.1',
  choices: [],
  usage,
});

/** The writer's whole output for these chunks, then end(). */
const written = (chunks: readonly Record<string, unknown>[]): string => {
  const writer = anthropicClient.streamWriter(context);
  return chunks.map((item) => writer.chunk(item)).join('') + writer.end();
};

/** The events of a stream, their data parsed (checking each event's name is its data's type). */
const eventsOf = (text: string): Record<string, unknown>[] => {
  const parser = createSseParser();
  return [...parser.feed(text), ...parser.end()].map((item) => {
    const data = JSON.parse(item.data) as Record<string, unknown>;
    expect(data['type']).toBe(item.event);
    return data;
  });
};

const start = (input = 0) => ({
  type: 'message_start',
  message: {
    id: 'msg_014p7gG3wDgGV9EUtLvnow3U',
    type: 'message',
    role: 'assistant',
    model: 'claude-opus-4-1-20250805',
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: {
      input_tokens: input,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
    },
  },
});
const PING = { type: 'ping' };
const textDelta = (index: number, text: string) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'text_delta', text },
});
const jsonDelta = (index: number, partial_json: string) => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
});
const stop = (index: number) => ({ type: 'content_block_stop', index });
const messageDelta = (stop_reason: string, input: number, output: number, read = 0, written = 0) => ({
  type: 'message_delta',
  delta: { stop_reason, stop_sequence: null },
  usage: {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: read,
    cache_creation_input_tokens: written,
  },
});
const MESSAGE_STOP = { type: 'message_stop' };

describe('anthropic client: hub chunks → the documented event sequences', () => {
  it('writes the streaming guide’s basic text stream', () => {
    // https://docs.anthropic.com/en/docs/build-with-claude/streaming ("Basic streaming request"). The
    // hub tells the usage at the end only: message_start says 0, message_delta has it all.
    const text = written([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello' }),
      chunk({ content: '!' }),
      chunk({}, 'stop'),
      usageChunk({ prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 }),
    ]);
    expect(eventsOf(text)).toEqual([
      start(),
      PING,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      textDelta(0, 'Hello'),
      textDelta(0, '!'),
      stop(0),
      messageDelta('end_turn', 25, 15),
      MESSAGE_STOP,
    ]);
    expect(text.startsWith('event: message_start\ndata: {"type":"message_start","message":{"id":"msg_')).toBe(
      true,
    );
    expect(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
  });

  it('writes the streaming guide’s tool-use stream', () => {
    // https://docs.anthropic.com/en/docs/build-with-claude/streaming ("Streaming request with tool use")
    const words = [
      'Okay',
      ',',
      ' let',
      "'s",
      ' check',
      ' the',
      ' weather',
      ' for',
      ' San',
      ' Francisco',
      ',',
      ' CA',
      ':',
    ];
    const pieces = ['{"location":', ' "San', ' Francisc', 'o,', ' CA"', ', ', '"unit": "fah', 'renheit"}'];
    const text = written([
      chunk({ role: 'assistant', content: '' }),
      ...words.map((word) => chunk({ content: word })),
      chunk({
        tool_calls: [
          {
            index: 0,
            id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      }),
      ...pieces.map((piece) => chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
      chunk({}, 'tool_calls'),
      usageChunk({ prompt_tokens: 472, completion_tokens: 89, total_tokens: 561 }),
    ]);
    expect(eventsOf(text)).toEqual([
      start(),
      PING,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ...words.map((word) => textDelta(0, word)),
      stop(0),
      {
        type: 'content_block_start',
        index: 1,
        content_block: {
          type: 'tool_use',
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'get_weather',
          input: {},
        },
      },
      ...pieces.map((piece) => jsonDelta(1, piece)),
      stop(1),
      messageDelta('tool_use', 472, 89),
      MESSAGE_STOP,
    ]);
  });

  it('writes reasoning as a thinking block closed by a signature_delta, then the text', () => {
    const text = written([
      chunk({ role: 'assistant', reasoning_content: 'Let me solve this step by step:' }),
      chunk({ reasoning_content: '\n27 * 453 = 12231' }),
      chunk({ content: '27 * 453 = 12,231' }, 'stop', {
        usage: { prompt_tokens: 40, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 32 } },
      }),
    ]);
    expect(eventsOf(text)).toEqual([
      start(),
      PING,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: 'Let me solve this step by step:' },
      },
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'thinking_delta', thinking: '\n27 * 453 = 12231' },
      },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: '' } },
      stop(0),
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      textDelta(1, '27 * 453 = 12,231'),
      stop(1),
      messageDelta('end_turn', 8, 30, 32),
      MESSAGE_STOP,
    ]);
  });

  it('reads `reasoning` too, and starts a new block for each tool call', () => {
    const events = eventsOf(
      written([
        chunk({ reasoning: 'Two cities.' }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_a', function: { name: 'get_weather', arguments: '{"location":' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({
          tool_calls: [
            { index: 1, id: 'call_b', function: { name: 'get_weather', arguments: '{"location":"Oslo"}' } },
          ],
        }),
        chunk({}, 'tool_calls'),
      ]),
    );
    const starts = events.filter((item) => item['type'] === 'content_block_start');
    expect(starts.map((item) => item['content_block'])).toEqual([
      { type: 'thinking', thinking: '', signature: '' },
      { type: 'tool_use', id: 'call_a', name: 'get_weather', input: {} },
      { type: 'tool_use', id: 'call_b', name: 'get_weather', input: {} },
    ]);
    expect(events.filter((item) => item['type'] === 'content_block_delta').at(-1)).toEqual(
      jsonDelta(2, '{"location":"Oslo"}'),
    );
    expect(events.at(-2)).toEqual(messageDelta('tool_use', 0, 0));
  });

  it('tells calls apart by id when an upstream numbers them all 0, and drops a late fragment', () => {
    const events = eventsOf(
      written([
        chunk({ tool_calls: [{ index: 0, id: 'call_a', function: { name: 'a', arguments: '{}' } }] }),
        chunk({ tool_calls: [{ index: 0, id: 'call_b', function: { name: 'b', arguments: '{"x":1}' } }] }),
        chunk({ tool_calls: [{ id: 'call_c', function: { name: 'c', arguments: '{}' } }] }),
        chunk({ tool_calls: [{ index: 0, id: 'call_b', function: { arguments: '' } }] }),
        chunk({}, 'stop'),
      ]),
    );
    expect(
      events.filter((item) => item['type'] === 'content_block_start').map((item) => item['index']),
    ).toEqual([0, 1, 2]);
    expect(
      events.filter((item) => item['type'] === 'content_block_stop').map((item) => item['index']),
    ).toEqual([0, 1, 2]);
    // finish_reason `stop` after tool calls: the message still stopped to use them.
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('answers an empty stream, and usage given on the finish chunk or not at all', () => {
    const unnamed = start();
    unnamed.message.id = 'msg_req1';
    expect(eventsOf(written([]))).toEqual([unnamed, PING, messageDelta('end_turn', 0, 0), MESSAGE_STOP]);
    const first = chunk({ content: 'Hi' }, 'length', { usage: { prompt_tokens: 9, completion_tokens: 1 } });
    expect(eventsOf(written([first])).slice(0, 1)).toEqual([start(9)]);
    expect(eventsOf(written([first])).at(-2)).toEqual(messageDelta('max_tokens', 9, 1));
    expect(eventsOf(written([chunk({ content: 'x' }, 'content_filter')])).at(-2)).toEqual(
      messageDelta('refusal', 0, 0),
    );
  });

  it('emits nothing twice: end() after end() or error(), anything after the end, is empty', () => {
    const writer = anthropicClient.streamWriter(context);
    expect(writer.chunk(chunk({ content: 'Hi' }))).not.toBe('');
    expect(writer.end()).toContain('message_stop');
    expect(writer.end()).toBe('');
    expect(writer.chunk(chunk({ content: 'again' }))).toBe('');
    expect(writer.error({ message: 'late', type: 'api_error', code: '' })).toBe('');

    const failing = anthropicClient.streamWriter(context);
    failing.chunk(chunk({ content: 'Hel' }));
    expect(failing.error({ message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error' })).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
    expect(failing.end()).toBe('');
    expect(failing.error({ message: 'again', type: 'api_error', code: '' })).toBe('');
  });

  it.each([
    [{ message: 'm', type: 'upstream_error', code: '' }, 'api_error'],
    [{ message: 'm', type: 'server_error', code: 'rate_limit_exceeded' }, 'rate_limit_error'],
    [{ message: 'm', type: 'rate_limit_error', code: '' }, 'rate_limit_error'],
    [{ message: 'm', type: 'invalid_request_error', code: '' }, 'invalid_request_error'],
  ])('names a mid-stream error %j as %s', (error, type) => {
    const writer = anthropicClient.streamWriter(context);
    expect(eventsOf(writer.error(error))).toEqual([{ type: 'error', error: { type, message: 'm' } }]);
  });
});
