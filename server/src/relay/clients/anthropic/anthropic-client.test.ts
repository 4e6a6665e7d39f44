import {
  Anthropic,
  APIError,
  AuthenticationError,
  BadRequestError,
  ContentTooLargeError,
  InternalServerError,
  NotFoundError,
  OverloadedError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ClientContext } from '../client-format.js';
import { anthropicClient, anthropicCountAnswer, anthropicErrorType, anthropicModelList } from './index.js';

const context: ClientContext = {
  model: 'claude-sonnet-4-5',
  requestId: 'req1',
  request: {},
  created: 1_750_000_000,
};

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-abc',
  object: 'chat.completion.chunk',
  created: 1_750_000_000,
  model: 'gpt-4.1',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

/** The official SDK, answered by this response. */
const sdk = (response: () => Response) =>
  new Anthropic({ apiKey: 'x', maxRetries: 0, fetch: () => Promise.resolve(response()) });

const sse = (text: string) => () => new Response(text, { headers: { 'content-type': 'text/event-stream' } });

const PARAMS = {
  model: 'gpt-4.1',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: 'What is the weather like in Paris and Oslo?' }],
};

describe('anthropic client: what the official SDK reads', () => {
  it('reads a written stream into the final message: thinking, text, tool inputs, stop reason, usage', async () => {
    const writer = anthropicClient.streamWriter(context);
    const text = [
      chunk({ role: 'assistant', reasoning_content: 'Two cities, ' }),
      chunk({ reasoning_content: 'two calls.' }),
      chunk({ content: 'Checking ' }),
      chunk({ content: 'both.' }),
      chunk({
        tool_calls: [
          { index: 0, id: 'call_p', type: 'function', function: { name: 'get_weather', arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ' "Paris"}' } }] }),
      chunk({
        tool_calls: [
          {
            index: 1,
            id: 'call_o',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location":"Oslo"}' },
          },
        ],
      }),
      chunk({}, 'tool_calls'),
      {
        id: 'chatcmpl-abc',
        object: 'chat.completion.chunk',
        choices: [],
        usage: { prompt_tokens: 120, completion_tokens: 45, prompt_tokens_details: { cached_tokens: 100 } },
      },
    ]
      .map((item) => writer.chunk(item))
      .join('');
    const message = await sdk(sse(text + writer.end()))
      .messages.stream(PARAMS)
      .finalMessage();
    expect(message.id).toBe('msg_abc');
    expect(message.model).toBe('claude-sonnet-4-5');
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Two cities, two calls.', signature: '' },
      { type: 'text', text: 'Checking both.' },
      { type: 'tool_use', id: 'call_p', name: 'get_weather', input: { location: 'Paris' } },
      { type: 'tool_use', id: 'call_o', name: 'get_weather', input: { location: 'Oslo' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.stop_sequence).toBeNull();
    expect(message.usage).toEqual({
      input_tokens: 20,
      output_tokens: 45,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100,
    });
  });

  it('reads a plain text stream with the SDK’s text events', async () => {
    const writer = anthropicClient.streamWriter(context);
    const text = ['Hello', ' there', '!'].map((piece) => writer.chunk(chunk({ content: piece }))).join('');
    const stream = sdk(sse(text + writer.chunk(chunk({}, 'length')) + writer.end())).messages.stream(PARAMS);
    const pieces: string[] = [];
    stream.on('text', (piece) => pieces.push(piece));
    const message = await stream.finalMessage();
    expect(pieces).toEqual(['Hello', ' there', '!']);
    expect(message.content).toEqual([{ type: 'text', text: 'Hello there!' }]);
    expect(message.stop_reason).toBe('max_tokens');
  });

  it('throws the error event of a stream that failed midway', async () => {
    const writer = anthropicClient.streamWriter(context);
    const text =
      writer.chunk(chunk({ content: 'Hel' })) +
      writer.error({ message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error' });
    const failure = await sdk(sse(text + writer.end()))
      .messages.stream(PARAMS)
      .finalMessage()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(APIError);
    expect((failure as APIError).type).toBe('overloaded_error');
    expect((failure as APIError).message).toContain('Overloaded');
  });

  it.each([
    [400, BadRequestError, 'invalid_request_error'],
    [401, AuthenticationError, 'authentication_error'],
    [402, PaymentRequiredError, 'billing_error'],
    [403, PermissionDeniedError, 'permission_error'],
    [404, NotFoundError, 'not_found_error'],
    [413, ContentTooLargeError, 'request_too_large'],
    [429, RateLimitError, 'rate_limit_error'],
    [500, InternalServerError, 'api_error'],
    [529, OverloadedError, 'overloaded_error'],
  ])('answers a %i the SDK throws as its %o', async (status, errorClass, type) => {
    const body = anthropicClient.errorBody({
      status,
      message: 'It went wrong.',
      type: 'one_api_error',
      code: 'x',
    });
    expect(body).toEqual({ type: 'error', error: { type, message: 'It went wrong.' } });
    const failure = await sdk(
      () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
    )
      .messages.create(PARAMS)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(errorClass);
    expect((failure as APIError).status).toBe(status);
    expect((failure as APIError).type).toBe(type);
    expect((failure as APIError).apiMessage).toBe('It went wrong.');
  });
});

describe('anthropic client: errors, models, counts', () => {
  it.each([
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [408, 'invalid_request_error'],
    [413, 'request_too_large'],
    [422, 'invalid_request_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [503, 'overloaded_error'],
    [504, 'timeout_error'],
    [529, 'overloaded_error'],
  ])('names status %i %s', (status, type) => {
    expect(anthropicErrorType(status)).toBe(type);
  });

  it('lists models as GET /v1/models answers them, read by the SDK', async () => {
    const list = anthropicModelList([
      { id: 'claude-sonnet-4-5', created: 1_759_104_000 },
      { id: 'gpt-4.1', created: 1_744_316_542 },
    ]);
    expect(list).toEqual({
      data: [
        {
          type: 'model',
          id: 'claude-sonnet-4-5',
          display_name: 'claude-sonnet-4-5',
          created_at: '2025-09-29T00:00:00Z',
        },
        { type: 'model', id: 'gpt-4.1', display_name: 'gpt-4.1', created_at: '2025-04-10T20:22:22Z' },
      ],
      has_more: false,
      first_id: 'claude-sonnet-4-5',
      last_id: 'gpt-4.1',
    });
    expect(anthropicModelList([])).toEqual({ data: [], has_more: false, first_id: null, last_id: null });
    const page = await sdk(
      () => new Response(JSON.stringify(list), { headers: { 'content-type': 'application/json' } }),
    ).models.list();
    expect(page.data.map((model) => model.id)).toEqual(['claude-sonnet-4-5', 'gpt-4.1']);
    expect(page.hasNextPage()).toBe(false);
  });

  it('answers a count and names itself', async () => {
    expect(anthropicCountAnswer(14)).toEqual({ input_tokens: 14 });
    expect(anthropicClient.name).toBe('anthropic');
    const counted = await sdk(
      () =>
        new Response(JSON.stringify(anthropicCountAnswer(14)), {
          headers: { 'content-type': 'application/json' },
        }),
    ).messages.countTokens({
      model: 'claude-sonnet-4-5',
      messages: [{ role: 'user', content: 'Hello, world' }],
    });
    expect(counted.input_tokens).toBe(14);
  });
});
