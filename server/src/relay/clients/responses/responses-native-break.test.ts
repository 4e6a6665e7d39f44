import { describe, expect, it } from 'vitest';
import { createResponsesNativeBreak } from './responses-native-break.js';

const sse = (type: string, fields: Record<string, unknown>) => ({
  event: type,
  data: JSON.stringify({ type, ...fields }),
});

/** The events of a text that is a stream of server-sent events, parsed. */
const eventsOf = (text: string) =>
  text
    .split('\n\n')
    .filter((event) => event !== '')
    .map((event) => ({
      name: event.split('\n')[0]?.slice('event: '.length),
      data: JSON.parse(event.split('\ndata: ')[1] ?? '') as Record<string, unknown>,
    }));

describe('the break of a Responses stream passed through', () => {
  it('ends with error and response.failed: the upstream’s response, items done as they came, the open one incomplete', () => {
    const writer = createResponsesNativeBreak();
    const response = { id: 'resp_1', object: 'response', status: 'in_progress', output: [], usage: null };
    const message = { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [] };
    const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '' };
    for (const event of [
      sse('response.created', { response }),
      sse('response.output_item.added', { output_index: 0, item: { ...message, status: 'in_progress' } }),
      sse('response.output_text.delta', { output_index: 0, content_index: 0, delta: 'ignored once done' }),
      sse('response.output_item.done', { output_index: 0, item: message }),
      sse('response.output_item.added', { output_index: 1, item: call }),
      sse('response.function_call_arguments.delta', { output_index: 1, delta: '{"a":' }),
      sse('response.function_call_arguments.delta', { output_index: 1, delta: '1' }),
      { event: 'keep-alive', data: '' },
    ])
      writer.observe(event);
    const events = eventsOf(writer.failed({ message: 'cut', type: 'upstream_error', code: 'stream_broken' }));
    expect(events.map((event) => event.name)).toEqual(['error', 'response.failed']);
    expect(events[0]?.data).toEqual({
      type: 'error',
      code: 'stream_broken',
      message: 'cut',
      param: null,
      sequence_number: 8,
    });
    expect(events[1]?.data).toEqual({
      type: 'response.failed',
      sequence_number: 9,
      response: {
        ...response,
        status: 'failed',
        error: { code: 'server_error', message: 'cut' },
        incomplete_details: null,
        output: [message, { ...call, status: 'incomplete', arguments: '{"a":1' }],
      },
    });
  });

  it('keeps a code the Responses API knows in the failed response', () => {
    const writer = createResponsesNativeBreak();
    writer.observe(sse('response.created', { response: { id: 'resp_2' } }));
    const [, failed] = eventsOf(
      writer.failed({ message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' }),
    );
    expect(failed?.data['response']).toMatchObject({
      id: 'resp_2',
      status: 'failed',
      error: { code: 'rate_limit_exceeded', message: 'slow down' },
      output: [],
      usage: null,
    });
  });
});
