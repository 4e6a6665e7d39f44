import { Anthropic } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import type { ClientContext } from '../client-format.js';
import { anthropicClient } from './anthropic-client.js';

const context = (model: string): ClientContext => ({
  model,
  requestId: 'req7f3a',
  request: {},
  created: 1_750_000_000,
});

/** A hub `chat.completion` with one choice. */
const completion = (message: Record<string, unknown>, finish: string | null, usage?: unknown) => ({
  id: 'chatcmpl-01Aq9w938a90dw8q',
  object: 'chat.completion',
  created: 1_750_000_000,
  model: 'gpt-4.1',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finish }],
  ...(usage === undefined ? {} : { usage }),
});

const fromHub = (hub: Record<string, unknown>, model = 'claude-opus-4-1-20250805') =>
  anthropicClient.fromHub(hub, context(model)) as Record<string, unknown>;

describe('anthropic client: hub answers → Messages', () => {
  it('answers the documented basic Message', () => {
    // https://docs.anthropic.com/en/api/messages (the response example)
    const hub = {
      ...completion({ content: 'Hi! My name is Claude.' }, 'stop', {
        prompt_tokens: 2095,
        completion_tokens: 503,
        total_tokens: 2598,
      }),
      id: 'chatcmpl-msg_013Zva2CMHLNnXjNJJKqJ2EF',
    };
    expect(fromHub(hub, 'claude-3-7-sonnet-20250219')).toEqual({
      content: [{ text: 'Hi! My name is Claude.', type: 'text' }],
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      model: 'claude-3-7-sonnet-20250219',
      role: 'assistant',
      stop_reason: 'end_turn',
      stop_sequence: null,
      type: 'message',
      usage: {
        input_tokens: 2095,
        output_tokens: 503,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
  });

  it('answers the tool-use guide’s get_weather Message', () => {
    // https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview (the tool_use response)
    const hub = completion(
      {
        content: "I'll check the current weather in San Francisco for you.",
        tool_calls: [
          {
            id: 'toolu_01A09q90qw90lq917835lq9',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"location": "San Francisco, CA"}' },
          },
        ],
      },
      'tool_calls',
      { prompt_tokens: 472, completion_tokens: 91, total_tokens: 563 },
    );
    expect(fromHub(hub)).toEqual({
      id: 'msg_01Aq9w938a90dw8q',
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-1-20250805',
      content: [
        { type: 'text', text: "I'll check the current weather in San Francisco for you." },
        {
          type: 'tool_use',
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'get_weather',
          input: { location: 'San Francisco, CA' },
        },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: {
        input_tokens: 472,
        output_tokens: 91,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    });
  });

  it('puts reasoning first as a thinking block, omits empty text, reads bad arguments as {}', () => {
    const hub = completion(
      {
        content: '',
        reasoning_content: 'The user wants the time.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'now', arguments: 'not json' } }],
      },
      'stop',
    );
    expect(fromHub(hub)['content']).toEqual([
      { type: 'thinking', thinking: 'The user wants the time.', signature: '' },
      { type: 'tool_use', id: 'call_1', name: 'now', input: {} },
    ]);
    // An upstream that says `stop` after tool calls still stopped to use them.
    expect(fromHub(hub)['stop_reason']).toBe('tool_use');
    expect(fromHub(completion({ content: 'x', reasoning: 'Hm.' }, 'stop'))['content']).toEqual([
      { type: 'thinking', thinking: 'Hm.', signature: '' },
      { type: 'text', text: 'x' },
    ]);
    expect(fromHub(completion({ content: null }, 'stop'))['content']).toEqual([]);
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['content_filter', 'refusal'],
    [null, 'end_turn'],
    ['something_new', 'end_turn'],
  ])('finish_reason %s → stop_reason %s', (finish, stop) => {
    expect(fromHub(completion({ content: 'x' }, finish))['stop_reason']).toBe(stop);
  });

  it('answers a refusal as text with stop_reason refusal', () => {
    expect(fromHub(completion({ content: null, refusal: 'I cannot help with that.' }, 'stop'))).toMatchObject(
      {
        content: [{ type: 'text', text: 'I cannot help with that.' }],
        stop_reason: 'refusal',
      },
    );
  });

  it('splits cached tokens out of the input tokens', () => {
    const usage = {
      prompt_tokens: 3000,
      completion_tokens: 12,
      total_tokens: 3012,
      prompt_tokens_details: { cached_tokens: 2048, cache_creation_tokens: 900 },
    };
    expect(fromHub(completion({ content: 'x' }, 'stop', usage))['usage']).toEqual({
      input_tokens: 52,
      output_tokens: 12,
      cache_creation_input_tokens: 900,
      cache_read_input_tokens: 2048,
    });
    expect(fromHub(completion({ content: 'x' }, 'stop'))['usage']).toEqual({
      input_tokens: 0,
      output_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    });
  });

  it('derives the id from the request when the hub gave none', () => {
    expect(fromHub({ ...completion({ content: 'x' }, 'stop'), id: undefined })['id']).toBe('msg_req7f3a');
    expect(fromHub({ ...completion({ content: 'x' }, 'stop'), id: 'gen-123' })['id']).toBe('msg_gen-123');
  });

  it('is read by the official SDK as a Message', async () => {
    const message = fromHub(
      completion(
        {
          content: 'Let me look.',
          reasoning_content: 'Weather question.',
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
        'tool_calls',
        { prompt_tokens: 500, completion_tokens: 40, prompt_tokens_details: { cached_tokens: 100 } },
      ),
    );
    const client = new Anthropic({
      apiKey: 'x',
      maxRetries: 0,
      fetch: () =>
        Promise.resolve(
          new Response(JSON.stringify(message), { headers: { 'content-type': 'application/json' } }),
        ),
    });
    const answer = await client.messages.create({
      model: 'gpt-4.1',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'What is the weather like in San Francisco?' }],
    });
    expect(answer.content).toEqual([
      { type: 'thinking', thinking: 'Weather question.', signature: '' },
      { type: 'text', text: 'Let me look.' },
      {
        type: 'tool_use',
        id: 'toolu_01A09q90qw90lq917835lq9',
        name: 'get_weather',
        input: { location: 'San Francisco, CA', unit: 'celsius' },
      },
    ]);
    expect(answer.stop_reason).toBe('tool_use');
    expect(answer.usage).toEqual({
      input_tokens: 400,
      output_tokens: 40,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 100,
    });
  });
});
