import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta, piecesOf, replayStream } from '../../../test-support/stream-replay.js';
import type { RelayRequestMeta } from '../adaptor.js';
import { anthropicAdaptor } from './anthropic-adaptor.js';

const meta = (overrides: Partial<Omit<RelayRequestMeta, 'channel'>> = {}) =>
  fixtureMeta(
    { type: CHANNEL_TYPE.anthropic, baseUrl: 'https://api.anthropic.com', key: 'sk-ant-channel' },
    { model: 'claude-3-5-sonnet-20241022', ...overrides },
  );

const bodyOf = (body: Record<string, unknown>, overrides: Parameters<typeof meta>[0] = {}) =>
  JSON.parse(String(anthropicAdaptor.buildRequest(body, meta(overrides)).body)) as Record<string, unknown>;

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk';

describe('anthropic adaptor: requests', () => {
  it('pins the documented basic request: URL, headers and body', () => {
    const request = anthropicAdaptor.buildRequest(
      { model: 'claude', messages: [{ role: 'user', content: 'Hello, world' }], max_tokens: 1024 },
      meta(),
    );
    expect(request.url).toBe('https://api.anthropic.com/v1/messages');
    expect(request.headers).toEqual({
      'x-api-key': 'sk-ant-channel',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'claude-3-5-sonnet-20241022',
      max_tokens: 1024,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello, world' }] }],
    });
  });

  it('honours the client’s anthropic-version and anthropic-beta, and asks for SSE on streams', () => {
    const request = anthropicAdaptor.buildRequest(
      { messages: [{ role: 'user', content: 'Hi' }], stream: true },
      meta({
        stream: true,
        clientHeaders: { 'anthropic-version': '2024-01-01', 'anthropic-beta': 'prompt-caching-2024-07-31' },
      }),
    );
    expect(request.headers).toEqual({
      'x-api-key': 'sk-ant-channel',
      'anthropic-version': '2024-01-01',
      'anthropic-beta': 'prompt-caching-2024-07-31',
      'content-type': 'application/json',
      accept: 'text/event-stream',
    });
    expect(JSON.parse(String(request.body))).toMatchObject({ stream: true, max_tokens: 4096 });
  });

  it('converts a whole conversation: system, images, tool calls and results, merged roles', () => {
    const body = bodyOf(
      {
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in these images?' },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
            ],
          },
          { role: 'user', content: 'And the weather in Paris?' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'toolu_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
              },
              { id: 'toolu_2', type: 'function', function: { name: 'get_time', arguments: 'not json' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_1', content: '15 degrees' },
          { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '10:00' }] },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'get_weather',
              description: 'Get the current weather in a given location',
              parameters: {
                type: 'object',
                properties: { location: { type: 'string' } },
                required: ['location'],
              },
            },
          },
          { type: 'function', function: { name: 'get_time' } },
        ],
        tool_choice: 'required',
        max_completion_tokens: 300,
        temperature: 0.5,
        top_p: 0.9,
        top_k: 40,
        stop: 'END',
        user: 'user-42',
      },
      { stream: true },
    );
    expect(body).toEqual({
      model: 'claude-3-5-sonnet-20241022',
      system: 'You are terse.\nAnswer in French.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these images?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            { type: 'text', text: 'And the weather in Paris?' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { location: 'Paris' } },
            { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: '15 degrees' },
            { type: 'tool_result', tool_use_id: 'toolu_2', content: '10:00' },
          ],
        },
      ],
      max_tokens: 300,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END'],
      tools: [
        {
          name: 'get_weather',
          description: 'Get the current weather in a given location',
          input_schema: {
            type: 'object',
            properties: { location: { type: 'string' } },
            required: ['location'],
          },
        },
        { name: 'get_time', input_schema: { type: 'object', properties: {} } },
      ],
      tool_choice: { type: 'any' },
      metadata: { user_id: 'user-42' },
      stream: true,
    });
  });

  it('maps tool_choice and parallel_tool_calls', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const choice = (extra: Record<string, unknown>) =>
      bodyOf({ messages: [{ role: 'user', content: 'x' }], tools, ...extra })['tool_choice'];
    expect(choice({})).toBeUndefined();
    expect(choice({ tool_choice: 'auto' })).toEqual({ type: 'auto' });
    expect(choice({ tool_choice: 'none' })).toEqual({ type: 'none' });
    expect(choice({ tool_choice: { type: 'function', function: { name: 'f' } } })).toEqual({
      type: 'tool',
      name: 'f',
    });
    expect(choice({ parallel_tool_calls: false })).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(
      bodyOf({ messages: [{ role: 'user', content: 'x' }], tool_choice: 'auto', stop: ['a', 'b'] }),
    ).toEqual({
      model: 'claude-3-5-sonnet-20241022',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
      max_tokens: 4096,
      stop_sequences: ['a', 'b'],
    });
  });

  it('answers a 400 for messages no provider could take', () => {
    expect(() =>
      anthropicAdaptor.buildRequest({ messages: [{ role: 'user', content: 42 }] }, meta()),
    ).toThrow(expect.objectContaining({ status: 400, code: 'convert_request_failed' }));
  });
});

describe('anthropic adaptor: responses', () => {
  it('translates the documented text response', () => {
    const parsed = anthropicAdaptor.parseResponse(
      {
        id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
        type: 'message',
        role: 'assistant',
        model: 'claude-3-5-sonnet-20241022',
        content: [{ type: 'text', text: 'Hi! My name is Claude.' }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 2095, output_tokens: 503 },
      },
      meta({ model: 'claude-mapped' }),
    );
    expect(parsed.body).toEqual({
      id: 'chatcmpl-msg_013Zva2CMHLNnXjNJJKqJ2EF',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'claude-mapped',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi! My name is Claude.' },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 },
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 2095, completion_tokens: 503, total_tokens: 2598 });
    expect(parsed.text).toBe('Hi! My name is Claude.');
  });

  it('translates the documented tool_use response, joining every text block', () => {
    const parsed = anthropicAdaptor.parseResponse(
      {
        id: 'msg_01Aq9w938a90dw8q',
        model: 'claude-3-5-sonnet-20241022',
        stop_reason: 'tool_use',
        role: 'assistant',
        content: [
          { type: 'text', text: 'I need to use get_weather, ' },
          { type: 'text', text: 'for San Francisco.' },
          {
            type: 'tool_use',
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'get_weather',
            input: { location: 'San Francisco, CA', unit: 'celsius' },
          },
        ],
        usage: {
          input_tokens: 10,
          cache_creation_input_tokens: 20,
          cache_read_input_tokens: 30,
          output_tokens: 5,
        },
      },
      meta(),
    );
    expect(parsed.body).toMatchObject({
      choices: [
        {
          message: {
            role: 'assistant',
            content: 'I need to use get_weather, for San Francisco.',
            tool_calls: [
              {
                id: 'toolu_01A09q90qw90lq917835lq9',
                type: 'function',
                function: {
                  name: 'get_weather',
                  arguments: '{"location":"San Francisco, CA","unit":"celsius"}',
                },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 60, completion_tokens: 5, total_tokens: 65 },
    });
  });

  it('maps stop reasons and leaves content null for a reply of tool calls only', () => {
    const finish = (stop_reason: string) =>
      (
        anthropicAdaptor.parseResponse(
          { id: 'm', content: [{ type: 'text', text: 'x' }], stop_reason },
          meta(),
        ).body as { choices: { finish_reason: string }[] }
      ).choices[0]?.finish_reason;
    expect(finish('end_turn')).toBe('stop');
    expect(finish('stop_sequence')).toBe('stop');
    expect(finish('max_tokens')).toBe('length');
    expect(finish('tool_use')).toBe('tool_calls');
    const onlyTools = anthropicAdaptor.parseResponse(
      { id: 'm', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }], stop_reason: 'tool_use' },
      meta(),
    );
    expect(onlyTools.body).toMatchObject({ choices: [{ message: { content: null } }] });
    expect(onlyTools.usage).toBeUndefined();
  });

  it('reads Anthropic error bodies, and OpenAI-style ones from proxies', () => {
    expect(
      anthropicAdaptor.parseError({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
      }),
    ).toEqual({
      message: 'max_tokens: Field required',
      type: 'invalid_request_error',
      code: 'invalid_request_error',
    });
    expect(anthropicAdaptor.parseError({ error: { message: 'proxy says no', type: 'x' } })).toEqual({
      message: 'proxy says no',
      type: 'x',
      code: '',
      param: '',
    });
    expect(anthropicAdaptor.parseError('nope')).toBeUndefined();
  });
});

/** The documented text stream (event names, a ping, spaces after `data:`). */
const TEXT_STREAM = [
  'event: message_start',
  'data: {"type": "message_start", "message": {"id": "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", "type": "message", "role": "assistant", "content": [], "model": "claude-3-5-sonnet-20241022", "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 25, "output_tokens": 1}}}',
  '',
  'event: content_block_start',
  'data: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}',
  '',
  'event: ping',
  'data: {"type": "ping"}',
  '',
  'event: content_block_delta',
  'data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}',
  '',
  'event: content_block_delta',
  'data: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "!"}}',
  '',
  'event: content_block_stop',
  'data: {"type": "content_block_stop", "index": 0}',
  '',
  'event: message_delta',
  'data: {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence":null}, "usage": {"output_tokens": 15}}',
  '',
  'event: message_stop',
  'data: {"type": "message_stop"}',
  '',
  '',
].join('\n');

/** The documented tool-use stream: text, then a tool_use block filled by input_json_delta. */
const TOOL_STREAM = [
  'event: message_start',
  'data: {"type":"message_start","message":{"id":"msg_014p7gG3wDgGV9EUtLvnow3U","type":"message","role":"assistant","model":"claude-3-haiku-20240307","stop_sequence":null,"usage":{"input_tokens":472,"output_tokens":2},"content":[],"stop_reason":null}}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Okay, let\'s check"}}',
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":0}',
  '',
  'event: content_block_start',
  'data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{}}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"location\\":"}}',
  '',
  'event: content_block_delta',
  'data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \\"San Francisco, CA\\"}"}}',
  '',
  'event: content_block_stop',
  'data: {"type":"content_block_stop","index":1}',
  '',
  'event: message_delta',
  'data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}',
  '',
  'event: message_stop',
  'data: {"type":"message_stop"}',
  '',
  '',
].join('\r\n');

const deltas = (chunks: unknown[]) =>
  chunks.map((chunk) => {
    const choice = (chunk as { choices: { delta: unknown; finish_reason: unknown }[] }).choices[0];
    return { delta: choice?.delta, finish: choice?.finish_reason };
  });

describe('anthropic adaptor: streams', () => {
  for (const size of [1, 7, 64, TEXT_STREAM.length]) {
    it(`relays the documented text stream fed ${size} characters at a time`, () => {
      const replay = replayStream(anthropicAdaptor, meta({ stream: true }), piecesOf(TEXT_STREAM, size));
      expect(deltas(replay.chunks)).toEqual([
        { delta: { role: 'assistant', content: '' }, finish: null },
        { delta: { content: 'Hello' }, finish: null },
        { delta: { content: '!' }, finish: null },
        { delta: {}, finish: 'stop' },
      ]);
      expect(replay.chunks[0]).toEqual({
        id: 'chatcmpl-msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY',
        object: 'chat.completion.chunk',
        created: expect.any(Number),
        model: 'claude-3-5-sonnet-20241022',
        choices: [
          { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
        ],
      });
      expect(replay.usage).toEqual({ prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 });
      expect(replay.text).toBe('Hello!');
      expect(replay.done).toBe(true);
    });
  }

  it('relays the documented tool-use stream (CRLF lines) as tool call deltas', () => {
    const replay = replayStream(anthropicAdaptor, meta({ stream: true }), piecesOf(TOOL_STREAM, 5));
    expect(deltas(replay.chunks)).toEqual([
      { delta: { role: 'assistant', content: '' }, finish: null },
      { delta: { content: "Okay, let's check" }, finish: null },
      {
        delta: {
          tool_calls: [
            {
              index: 0,
              id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
              type: 'function',
              function: { name: 'get_weather', arguments: '' },
            },
          ],
        },
        finish: null,
      },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }, finish: null },
      {
        delta: { tool_calls: [{ index: 0, function: { arguments: ' "San Francisco, CA"}' } }] },
        finish: null,
      },
      { delta: {}, finish: 'tool_calls' },
    ]);
    expect(replay.usage).toEqual({ prompt_tokens: 472, completion_tokens: 89, total_tokens: 561 });
  });

  it('ends on an error event with that error, keeping the text counted so far', () => {
    const transcript = [
      TEXT_STREAM.split('event: content_block_stop')[0],
      'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n',
    ].join('');
    const replay = replayStream(anthropicAdaptor, meta({ stream: true }), piecesOf(transcript, 11));
    expect(replay.chunks).toHaveLength(3);
    expect(replay.steps.at(-1)).toEqual({
      chunks: [],
      done: true,
      error: { message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error' },
    });
    expect(replay.usage).toBeUndefined();
    expect(replay.text).toBe('Hello!');
  });

  it('takes input tokens from message_delta when Anthropic reports them there', () => {
    const transcript = TEXT_STREAM.replace(
      '"usage": {"output_tokens": 15}',
      '"usage": {"input_tokens": 30, "cache_read_input_tokens": 5, "output_tokens": 15}',
    );
    const replay = replayStream(anthropicAdaptor, meta({ stream: true }), [transcript]);
    expect(replay.usage).toEqual({
      prompt_tokens: 35,
      completion_tokens: 15,
      total_tokens: 50,
      prompt_tokens_details: { cached_tokens: 5 },
    });
  });
});
