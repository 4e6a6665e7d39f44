import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import { anthropicClient } from './anthropic-client.js';
import { ANTHROPIC_ONLY } from './index.js';

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

describe('anthropic client: refusals (400, naming the field)', () => {
  const user = [{ role: 'user', content: 'x' }];

  it.each([
    [{ max_tokens: 5, messages: user }, 'model is required'],
    [{ model: '', max_tokens: 5, messages: user }, 'model is required'],
    [{ model: 'm', messages: user }, 'max_tokens is required'],
    [{ model: 'm', max_tokens: 0, messages: user }, 'max_tokens must be at least 1'],
    [{ model: 'm', max_tokens: 1.5, messages: user }, 'max_tokens must be an integer'],
    [{ model: 'm', max_tokens: 5, messages: [] }, 'messages must not be empty'],
    [{ model: 'm', max_tokens: 5, messages: 'hi' }, 'messages must be a list of messages'],
    [
      { model: 'm', max_tokens: 5, messages: [{ role: 'tool', content: 'x' }] },
      'messages.0.role: role must be user or assistant',
    ],
    [
      { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 5 }] },
      'messages.0.content: content must be a string or a list of content blocks',
    ],
    [{ model: 'm', max_tokens: 5, stream: 'yes', messages: user }, 'stream must be true or false'],
  ])('%j → %s', (body, message) => {
    const error = refusal(body);
    expect(error.status).toBe(400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe(message);
  });

  it.each([
    [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
      'messages.0.content.0.type: content block type "server_tool_use" is not supported on this channel',
      ANTHROPIC_ONLY,
    ],
    [
      { type: 'image', source: { type: 'file', file_id: 'file_1' } },
      'messages.0.content.0.source.type: image source "file" is not supported on this channel',
      ANTHROPIC_ONLY,
    ],
    [
      { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
      'messages.0.content.0.source.type: document source "url" is not supported on this channel',
      ANTHROPIC_ONLY,
    ],
    [
      { type: 'tool_result', tool_use_id: 't', content: [{ type: 'tool_reference', tool_name: 'x' }] },
      'messages.0.content.0.content.0.type: tool result block "tool_reference" is not supported on this channel',
      ANTHROPIC_ONLY,
    ],
    [
      { type: 'text' },
      'messages.0.content.0.text: Invalid input: expected string, received undefined',
      'invalid_request',
    ],
    [
      { type: 'tool_use', id: 'toolu_1', name: 'x', input: {} },
      'messages.0.content.0: tool_use blocks are not allowed in user messages',
      'invalid_request',
    ],
  ])('refuses the user block %j', (block, message, code) => {
    const error = refusal({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: [block] }] });
    expect(error.message).toBe(message);
    expect(error.code).toBe(code);
  });

  it('refuses a tool_result in an assistant message', () => {
    expect(
      refusal({
        model: 'm',
        max_tokens: 5,
        messages: [{ role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] }],
      }).message,
    ).toBe('messages.0.content.0: tool_result blocks are not allowed in assistant messages');
  });

  it.each([
    'web_search_20250305',
    'web_fetch_20250910',
    'bash_20250124',
    'text_editor_20250728',
    'computer_20250124',
    'code_execution_20250825',
    'memory_20250818',
  ])('refuses Anthropic’s own %s tool, naming it', (type) => {
    const error = refusal({
      model: 'm',
      max_tokens: 5,
      tools: [GET_WEATHER, { type, name: type.split('_')[0] }],
      messages: user,
    });
    expect(error.status).toBe(400);
    expect(error.code).toBe(ANTHROPIC_ONLY);
    expect(error.message).toBe(
      `tools.1.type: the ${type} tool is Anthropic's own and needs a channel that speaks Anthropic's format`,
    );
  });

  it('refuses a custom tool without input_schema, a tool_choice it does not know, thinking without a budget, MCP servers', () => {
    expect(refusal({ model: 'm', max_tokens: 5, tools: [{ name: 'x' }], messages: user }).message).toBe(
      'tools.0.input_schema is required',
    );
    expect(
      refusal({ model: 'm', max_tokens: 5, tool_choice: { type: 'sometimes' }, messages: user }).message,
    ).toBe('tool_choice.type: tool_choice type "sometimes" is not supported on this channel');
    expect(
      refusal({ model: 'm', max_tokens: 5, thinking: { type: 'enabled' }, messages: user }).message,
    ).toBe('thinking.budget_tokens is required');
    const mcp = refusal({
      model: 'm',
      max_tokens: 5,
      mcp_servers: [{ type: 'url', url: 'https://mcp.example.com' }],
      messages: user,
    });
    expect(mcp.message).toBe('mcp_servers is not supported on this channel');
    expect(mcp.code).toBe(ANTHROPIC_ONLY);
  });
});
