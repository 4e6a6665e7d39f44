import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import { anthropicClient } from './anthropic-client.js';
import { readAnthropicCountRequest } from './anthropic-to-hub.js';

const toHub = (body: Record<string, unknown>) => anthropicClient.toHub(body, {});

/** The 400 a body is refused with. */
const refusal = (body: Record<string, unknown>, read = toHub): AppError => {
  try {
    read(body);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('the body was accepted');
};

const GET_WEATHER = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  input_schema: {
    type: 'object',
    properties: {
      location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
    },
    required: ['location'],
  },
};

const GET_WEATHER_FUNCTION = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the current weather in a given location',
    parameters: GET_WEATHER.input_schema,
  },
};

const JPEG = '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP';

describe('anthropic client: documented requests → hub', () => {
  it('reads the tool-use guide’s get_weather request', () => {
    // https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview (the first example)
    const body = {
      model: 'claude-opus-4-1-20250805',
      max_tokens: 1024,
      tools: [GET_WEATHER],
      messages: [{ role: 'user', content: 'What is the weather like in San Francisco?' }],
    };
    expect(toHub(body)).toEqual({
      model: 'claude-opus-4-1-20250805',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'What is the weather like in San Francisco?' }],
      tools: [GET_WEATHER_FUNCTION],
    });
  });

  it('reads the streaming guide’s tool-use request (tool_choice any, stream)', () => {
    // https://docs.anthropic.com/en/docs/build-with-claude/streaming ("Streaming request with tool use")
    const body = {
      model: 'claude-opus-4-1-20250805',
      max_tokens: 1024,
      tools: [GET_WEATHER],
      tool_choice: { type: 'any' },
      messages: [{ role: 'user', content: 'What is the weather like in San Francisco?' }],
      stream: true,
    };
    expect(toHub(body)).toEqual({
      model: 'claude-opus-4-1-20250805',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'What is the weather like in San Francisco?' }],
      tools: [GET_WEATHER_FUNCTION],
      tool_choice: 'required',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('reads the vision guide’s requests: a base64 image and a URL image', () => {
    // https://docs.anthropic.com/en/docs/build-with-claude/vision
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: JPEG } },
            {
              type: 'image',
              source: {
                type: 'url',
                url: 'https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg',
              },
            },
            { type: 'text', text: 'Describe this image.' },
          ],
        },
      ],
    };
    expect(toHub(body)['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${JPEG}` } },
          {
            type: 'image_url',
            image_url: {
              url: 'https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg',
            },
          },
          { type: 'text', text: 'Describe this image.' },
        ],
      },
    ]);
  });

  it('reads the tool-use guide’s multi-turn conversation with a tool_result', () => {
    // https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
    const body = {
      model: 'claude-opus-4-1-20250805',
      max_tokens: 1024,
      tools: [GET_WEATHER],
      messages: [
        { role: 'user', content: 'What is the weather like in San Francisco?' },
        {
          role: 'assistant',
          content: [
            {
              type: 'text',
              text: '<thinking>I need to use get_weather, and the user wants SF, which is likely San Francisco, CA.</thinking>',
            },
            {
              type: 'tool_use',
              id: 'toolu_01A09q90qw90lq917835lq9',
              name: 'get_weather',
              input: { location: 'San Francisco, CA', unit: 'celsius' },
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees' },
          ],
        },
      ],
    };
    expect(toHub(body)['messages']).toEqual([
      { role: 'user', content: 'What is the weather like in San Francisco?' },
      {
        role: 'assistant',
        content:
          '<thinking>I need to use get_weather, and the user wants SF, which is likely San Francisco, CA.</thinking>',
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
      { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '15 degrees' },
    ]);
  });
});

describe('anthropic client: tools, sampling, thinking, count_tokens', () => {
  it('maps tool_choice and disable_parallel_tool_use', () => {
    const withChoice = (tool_choice: unknown) =>
      toHub({
        model: 'm',
        max_tokens: 5,
        tools: [GET_WEATHER],
        tool_choice,
        messages: [{ role: 'user', content: 'x' }],
      });
    expect(withChoice({ type: 'auto' })['tool_choice']).toBe('auto');
    expect(withChoice({ type: 'any' })['tool_choice']).toBe('required');
    expect(withChoice({ type: 'none' })['tool_choice']).toBe('none');
    expect(withChoice({ type: 'tool', name: 'get_weather' })['tool_choice']).toEqual({
      type: 'function',
      function: { name: 'get_weather' },
    });
    expect(withChoice({ type: 'auto' })).not.toHaveProperty('parallel_tool_calls');
    expect(withChoice({ type: 'any', disable_parallel_tool_use: true })['parallel_tool_calls']).toBe(false);
    // Without tools, OpenAI refuses tool_choice: it is left out.
    expect(
      toHub({
        model: 'm',
        max_tokens: 5,
        tool_choice: { type: 'auto' },
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).not.toHaveProperty('tool_choice');
  });

  it('maps sampling, stop sequences, the user, custom tools and structured output', () => {
    const hub = toHub({
      model: 'claude',
      max_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ['END', ''],
      metadata: { user_id: 'user-42' },
      stream: false,
      tools: [
        {
          type: 'custom',
          name: 'noop',
          input_schema: { type: 'object' },
          cache_control: { type: 'ephemeral' },
        },
      ],
      output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: {} } } },
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(hub).toEqual({
      model: 'claude',
      max_tokens: 300,
      messages: [{ role: 'user', content: 'x' }],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop: ['END'],
      user: 'user-42',
      tools: [{ type: 'function', function: { name: 'noop', parameters: { type: 'object' } } }],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'output', schema: { type: 'object', properties: {} }, strict: true },
      },
    });
  });

  it('maps extended thinking to reasoning_effort by its budget', () => {
    const effort = (thinking: unknown, extra: Record<string, unknown> = {}) =>
      toHub({
        model: 'm',
        max_tokens: 64000,
        thinking,
        ...extra,
        messages: [{ role: 'user', content: 'x' }],
      })['reasoning_effort'];
    expect(effort({ type: 'enabled', budget_tokens: 1024 })).toBe('low');
    expect(effort({ type: 'enabled', budget_tokens: 4095 })).toBe('low');
    expect(effort({ type: 'enabled', budget_tokens: 4096 })).toBe('medium');
    expect(effort({ type: 'enabled', budget_tokens: 16383 })).toBe('medium');
    expect(effort({ type: 'enabled', budget_tokens: 16384 })).toBe('high');
    expect(effort({ type: 'disabled' })).toBeUndefined();
    expect(effort({ type: 'adaptive' })).toBeUndefined();
    expect(effort({ type: 'adaptive' }, { output_config: { effort: 'low' } })).toBe('low');
    expect(effort({ type: 'adaptive' }, { output_config: { effort: 'max' } })).toBe('high');
    expect(effort({ type: 'disabled' }, { output_config: { effort: 'high' } })).toBeUndefined();
  });

  it('reads a count_tokens body (no max_tokens) into the hub form', () => {
    expect(
      readAnthropicCountRequest({
        model: 'claude-sonnet-4-5',
        system: 'You are a scientist',
        tools: [GET_WEATHER],
        messages: [{ role: 'user', content: 'Hello, Claude' }],
      }),
    ).toEqual({
      model: 'claude-sonnet-4-5',
      messages: [
        { role: 'system', content: 'You are a scientist' },
        { role: 'user', content: 'Hello, Claude' },
      ],
      tools: [GET_WEATHER_FUNCTION],
    });
    expect(refusal({ model: 'm', messages: [] }, readAnthropicCountRequest).message).toBe(
      'messages must not be empty',
    );
  });
});
