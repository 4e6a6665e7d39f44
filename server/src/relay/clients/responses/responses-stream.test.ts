import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../../lib/sse.js';
import type { ClientContext } from '../client-format.js';
import { responsesClient } from './index.js';

const context = (request: Record<string, unknown> = { model: 'm', input: 'x' }): ClientContext => ({
  model: 'm',
  requestId: 'req-1',
  request,
  created: 1_700_000_000,
});

const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
) => ({
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

type Event = Record<string, unknown> & { type: string };

/** Every event of a stream's text, checking the framing: `event:` is the data's type. */
const eventsOf = (text: string): Event[] =>
  createSseParser()
    .feed(text)
    .map((event) => {
      const data = JSON.parse(event.data) as Event;
      expect(event.event).toBe(data.type);
      return data;
    });

const run = (chunks: readonly Record<string, unknown>[], request?: Record<string, unknown>) => {
  const writer = responsesClient.streamWriter(context(request));
  return eventsOf(chunks.map((value) => writer.chunk(value)).join('') + writer.end());
};

const types = (events: readonly Event[]) => events.map((event) => event.type);
const done = (events: readonly Event[]) =>
  events.filter((event) => event.type === 'response.output_item.done').map((event) => event['item']);
const last = (events: readonly Event[]) => events.at(-1)!['response'] as Record<string, unknown>;

describe('responses stream writer', () => {
  it('frames events as OpenAI does and says each thing once; calls after the end yield nothing', () => {
    const writer = responsesClient.streamWriter(context());
    const text = writer.chunk(chunk({ content: 'Hi' }));
    expect(text.startsWith('event: response.created\ndata: {"type":"response.created",')).toBe(true);
    expect(text.endsWith('\n\n')).toBe(true);
    const end = writer.end();
    expect(writer.end()).toBe('');
    expect(writer.chunk(chunk({ content: 'more' }))).toBe('');
    expect(writer.error({ message: 'late', type: 'upstream_error', code: 'x' })).toBe('');
    const events = eventsOf(text + end);
    expect(events.map((event) => event['sequence_number'])).toEqual(events.map((_, index) => index));
    expect(types(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[0]!['response']).toMatchObject({
      status: 'in_progress',
      output: [],
      usage: null,
      store: false,
    });
  });

  it('answers an empty stream, and an error before any chunk', () => {
    expect(types(run([]))).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    const writer = responsesClient.streamWriter(context());
    const events = eventsOf(writer.error({ message: 'Bad key', type: 'upstream_error', code: '' }));
    expect(types(events)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    expect(events[2]).toEqual({
      type: 'error',
      code: null,
      message: 'Bad key',
      param: null,
      sequence_number: 2,
    });
    expect(last(events)).toMatchObject({
      status: 'failed',
      error: { code: 'server_error', message: 'Bad key' },
    });
  });

  it('starts a new item when the kind of output changes, and keeps calls open until the finish', () => {
    const events = run([
      chunk({ reasoning: 'Plan.' }),
      chunk({ content: 'First.' }),
      chunk({ tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{}' } }] }),
      chunk({ content: 'Meanwhile.' }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(done(events)).toEqual([
      expect.objectContaining({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Plan.' }] }),
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'First.' })] }),
      expect.objectContaining({
        type: 'message',
        content: [expect.objectContaining({ text: 'Meanwhile.' })],
      }),
      expect.objectContaining({ type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' }),
    ]);
    const output = last(events)['output'] as { type: string }[];
    expect(output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call', 'message']);
  });

  it('announces a call once its name is known, and gives a call without an id one of its own', () => {
    const events = run([
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { name: 'f', arguments: ':1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    const deltas = events.filter((event) => event.type === 'response.function_call_arguments.delta');
    expect(deltas.map((event) => event['delta'])).toEqual(['{"a":1}']);
    expect(done(events)).toEqual([
      expect.objectContaining({
        name: 'f',
        arguments: '{"a":1}',
        call_id: expect.stringMatching(/^call_/) as unknown,
      }),
    ]);
  });

  it('writes namespaced calls back with their namespace', () => {
    const request = {
      model: 'm',
      input: 'x',
      tools: [{ type: 'namespace', name: 'crm', tools: [{ type: 'function', name: 'find' }] }],
    };
    const events = run(
      [chunk({ tool_calls: [{ index: 0, id: 'c', function: { name: 'crm__find', arguments: '{}' } }] })],
      request,
    );
    expect(done(events)).toEqual([
      expect.objectContaining({ type: 'function_call', name: 'find', namespace: 'crm' }),
    ]);
  });

  it('ignores output after the finish but keeps the usage that follows; a filter makes it incomplete', () => {
    const events = run([
      chunk({ content: 'Hi' }, 'content_filter'),
      chunk({ content: 'ignored' }),
      {
        object: 'chat.completion.chunk',
        choices: [],
        usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
      },
    ]);
    expect(types(events).at(-1)).toBe('response.incomplete');
    expect(last(events)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
      output: [
        expect.objectContaining({ status: 'incomplete', content: [expect.objectContaining({ text: 'Hi' })] }),
      ],
      usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
    });
  });

  it('closes what is open when the hub ends without a finish reason', () => {
    const events = run([chunk({ content: 'cut' })]);
    expect(types(events).slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });
});
