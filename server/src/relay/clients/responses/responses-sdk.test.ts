import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import type { UpstreamErrorInfo } from '../../providers/adaptor.js';
import type { ClientContext } from '../client-format.js';
import { responsesClient } from './index.js';

/**
 * The official `openai` SDK against the translator: its request goes through `toHub`, the scripted
 * hub answer through `fromHub` or the stream writer, and the SDK reads what comes back.
 */
interface Script {
  readonly completion?: Record<string, unknown>;
  readonly chunks?: readonly Record<string, unknown>[];
  readonly error?: UpstreamErrorInfo;
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const sdkFor = (script: Script) => {
  const hubs: Record<string, unknown>[] = [];
  const client = new OpenAI({
    apiKey: 'x',
    baseURL: 'http://sluice.test/v1',
    maxRetries: 0,
    fetch: async (_url, init) => {
      await Promise.resolve();
      const request = JSON.parse(init?.body as string) as Record<string, unknown>;
      const context: ClientContext = {
        model: String(request['model']),
        requestId: 'req-1',
        request,
        created: 1741476542,
      };
      let hub: Record<string, unknown>;
      try {
        hub = responsesClient.toHub(request, {});
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        const body = responsesClient.errorBody({
          status: error.status,
          message: error.message,
          type: error.type,
          code: error.code,
        });
        return json(body, error.status);
      }
      hubs.push(hub);
      if (hub['stream'] !== true) return json(responsesClient.fromHub(script.completion ?? {}, context));
      const writer = responsesClient.streamWriter(context);
      const text =
        (script.chunks ?? []).map((chunk) => writer.chunk(chunk)).join('') +
        (script.error ? writer.error(script.error) : writer.end()) +
        writer.end();
      return new Response(text, { headers: { 'content-type': 'text/event-stream' } });
    },
  });
  return { client, hubs };
};

const completion = (message: Record<string, unknown>, finish = 'stop', usage?: Record<string, unknown>) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1741476542,
  model: 'upstream-model',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finish }],
  usage: usage ?? { prompt_tokens: 36, completion_tokens: 87, total_tokens: 123 },
});

const chunk = (
  delta: Record<string, unknown>,
  finish: string | null = null,
  extra: Record<string, unknown> = {},
) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1741476542,
  model: 'upstream-model',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  ...extra,
});

const usageChunk = (usage: Record<string, unknown>) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [],
  usage,
});

const STORY =
  'In a peaceful grove beneath a silver moon, a unicorn named Lumina discovered a hidden pool that reflected the stars.';

const WEATHER_TOOL = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Get current temperature for a given location.',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string' } },
    required: ['location'],
    additionalProperties: false,
  },
  strict: true,
};

describe('responses client through the openai SDK: JSON answers', () => {
  it('answers a string input; output_text, usage and the echo read back', async () => {
    const { client, hubs } = sdkFor({ completion: completion({ content: STORY }) });
    const response = await client.responses.create({
      model: 'gpt-4.1',
      input: 'Tell me a three sentence bedtime story about a unicorn.',
    });
    expect(hubs[0]).toEqual({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Tell me a three sentence bedtime story about a unicorn.' }],
    });
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(response.object).toBe('response');
    expect(response.created_at).toBe(1741476542);
    expect(response.status).toBe('completed');
    expect(response.model).toBe('gpt-4.1');
    expect(response.output_text).toBe(STORY);
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/) as unknown,
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: STORY, annotations: [] }],
      },
    ]);
    expect(response.usage).toEqual({
      input_tokens: 36,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 87,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 123,
    });
    expect(response).toMatchObject({
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      parallel_tool_calls: true,
      previous_response_id: null,
      store: false,
      temperature: null,
      text: { format: { type: 'text' } },
      tool_choice: 'auto',
      tools: [],
      top_p: null,
      metadata: {},
    });
  });

  it('runs the function-calling round trip', async () => {
    const { client, hubs } = sdkFor({
      completion: completion(
        {
          content: null,
          tool_calls: [
            {
              id: 'call_12345xyz',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Paris, France"}' },
            },
          ],
        },
        'tool_calls',
      ),
    });
    const input: OpenAI.Responses.ResponseInput = [
      { role: 'user', content: 'What is the weather like in Paris today?' },
    ];
    const response = await client.responses.create({
      model: 'gpt-4.1',
      input,
      tools: [WEATHER_TOOL],
      tool_choice: 'auto',
    });
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^fc_/) as unknown,
        type: 'function_call',
        status: 'completed',
        arguments: '{"location":"Paris, France"}',
        call_id: 'call_12345xyz',
        name: 'get_weather',
      },
    ]);
    expect(response.tools).toEqual([WEATHER_TOOL]);
    const call = response.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    input.push(call, { type: 'function_call_output', call_id: call.call_id, output: '14' });
    await client.responses.create({ model: 'gpt-4.1', input, tools: [WEATHER_TOOL] });
    expect(hubs[1]!['messages']).toEqual([
      { role: 'user', content: 'What is the weather like in Paris today?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_12345xyz',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Paris, France"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_12345xyz', content: '14' },
    ]);
  });

  it('parses structured output (responses.parse with text.format)', async () => {
    const event = { name: 'Science Fair', date: 'Friday', participants: ['Alice', 'Bob'] };
    const { client, hubs } = sdkFor({ completion: completion({ content: JSON.stringify(event) }) });
    const response = await client.responses.parse({
      model: 'gpt-4o-2024-08-06',
      input: [
        { role: 'system', content: 'Extract the event information.' },
        { role: 'user', content: 'Alice and Bob are going to a science fair on Friday.' },
      ],
      text: {
        format: {
          type: 'json_schema',
          name: 'calendar_event',
          strict: true,
          schema: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              date: { type: 'string' },
              participants: { type: 'array', items: { type: 'string' } },
            },
            required: ['name', 'date', 'participants'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(hubs[0]!['response_format']).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'calendar_event', strict: true },
    });
    expect(response.output_parsed).toEqual(event);
  });

  it('reports a cut answer as incomplete, with reasoning and a refusal', async () => {
    const { client } = sdkFor({
      completion: completion(
        { content: 'Partial', reasoning_content: 'Thinking it over.', refusal: 'no more' },
        'length',
        {
          prompt_tokens: 10,
          completion_tokens: 5,
          total_tokens: 15,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: { reasoning_tokens: 3 },
        },
      ),
    });
    const response = await client.responses.create({ model: 'o4-mini', input: 'x', max_output_tokens: 5 });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.max_output_tokens).toBe(5);
    expect(response.output[0]).toEqual({
      id: expect.stringMatching(/^rs_/) as unknown,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: 'Thinking it over.' }],
    });
    expect(response.output[1]).toMatchObject({
      type: 'message',
      status: 'incomplete',
      content: [
        { type: 'output_text', text: 'Partial' },
        { type: 'refusal', refusal: 'no more' },
      ],
    });
    expect(response.usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 4 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 3 },
      total_tokens: 15,
    });
  });

  it('turns a refused body into the SDK’s BadRequestError, naming the field', async () => {
    const { client } = sdkFor({});
    const error = await client.responses
      .create({ model: 'gpt-4.1', input: 'x', previous_response_id: 'resp_1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.status).toBe(400);
    expect(bad.code).toBe('responses_only');
    expect(bad.type).toBe('invalid_request_error');
    expect(bad.param).toBeNull();
    expect(bad.message).toContain('previous_response_id: Sluice keeps no responses');
  });
});

describe('responses client through the openai SDK: streams', () => {
  it('streams text: deltas, then finalResponse with usage', async () => {
    const { client, hubs } = sdkFor({
      chunks: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'In a peaceful grove' }),
        chunk({ content: ', a unicorn.' }),
        chunk({}, 'stop'),
        usageChunk({ prompt_tokens: 36, completion_tokens: 87, total_tokens: 123 }),
      ],
    });
    const stream = client.responses.stream({
      model: 'gpt-4.1',
      input: 'Tell me a story.',
      instructions: 'Be kind.',
    });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const response = await stream.finalResponse();
    expect(hubs[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(deltas).toEqual(['In a peaceful grove', ', a unicorn.']);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('In a peaceful grove, a unicorn.');
    expect(response.instructions).toBe('Be kind.');
    expect(response.usage).toMatchObject({ input_tokens: 36, output_tokens: 87, total_tokens: 123 });
  });

  it('streams reasoning and parallel function calls; create({ stream: true }) yields every event once, in order', async () => {
    const { client } = sdkFor({
      chunks: [
        chunk({ role: 'assistant', reasoning_content: 'Two cities' }),
        chunk({ reasoning_content: ', two calls.' }),
        chunk({
          tool_calls: [
            { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }),
        chunk({
          tool_calls: [
            {
              index: 1,
              id: 'call_b',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Rome"}' },
            },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        chunk({}, 'tool_calls', {
          usage: {
            prompt_tokens: 50,
            completion_tokens: 20,
            total_tokens: 70,
            completion_tokens_details: { reasoning_tokens: 8 },
          },
        }),
      ],
    });
    const stream = await client.responses.create({
      model: 'gpt-4.1',
      input: 'Weather in Paris and Rome?',
      tools: [WEATHER_TOOL],
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const completed = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(completed.response.output).toEqual([
      {
        id: expect.stringMatching(/^rs_/) as unknown,
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Two cities, two calls.' }],
      },
      expect.objectContaining({
        type: 'function_call',
        call_id: 'call_a',
        arguments: '{"location":"Paris"}',
        status: 'completed',
      }),
      expect.objectContaining({
        type: 'function_call',
        call_id: 'call_b',
        arguments: '{"location":"Rome"}',
        status: 'completed',
      }),
    ]);
    expect(completed.response.usage).toEqual({
      input_tokens: 50,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 8 },
      total_tokens: 70,
    });
  });

  it('streams a custom tool call, and reads a cut stream as incomplete', async () => {
    const { client } = sdkFor({
      chunks: [
        chunk({
          tool_calls: [
            {
              index: 0,
              id: 'call_p',
              type: 'function',
              function: { name: 'apply_patch', arguments: '{"input":"*** Begin' },
            },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: ' Patch"}' } }] }),
        chunk({}, 'length'),
      ],
    });
    const stream = client.responses.stream({
      model: 'gpt-5',
      input: 'Patch',
      tools: [{ type: 'custom', name: 'apply_patch', description: 'Edit files.' }],
    });
    const inputs: string[] = [];
    stream.on('response.custom_tool_call_input.delta', (event) => inputs.push(event.delta));
    const response = await stream.finalResponse();
    expect(inputs).toEqual(['*** Begin Patch']);
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'custom_tool_call',
        call_id: 'call_p',
        name: 'apply_patch',
        input: '*** Begin Patch',
        status: 'incomplete',
      }),
    ]);
    expect(response.usage).toBeNull();
  });

  it('ends a stream broken upstream with error and response.failed, which the SDK raises', async () => {
    const error: UpstreamErrorInfo = { message: 'Overloaded', type: 'upstream_error', code: 'overloaded' };
    const { client } = sdkFor({ chunks: [chunk({ content: 'Hel' })], error });
    const stream = await client.responses.create({ model: 'gpt-4.1', input: 'x', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    const failing = sdkFor({ chunks: [chunk({ content: 'Hel' })], error });
    const outcome = await failing.client.responses
      .stream({ model: 'gpt-4.1', input: 'x' })
      .finalResponse()
      .then(
        (response) => response.status,
        (caught: unknown) => caught,
      );
    expect(outcome).toMatchObject({ type: 'error', code: 'overloaded', message: 'Overloaded', param: null });
  });
});
