import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import { responsesClient } from './index.js';

const toHub = (body: Record<string, unknown>) => responsesClient.toHub(body, {});

/** The 400 a body gets, as `[code, message]`. */
const refusal = (body: Record<string, unknown>): [string, string] => {
  try {
    toHub(body);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.status).toBe(400);
    expect(error.type).toBe('invalid_request_error');
    return [error.code, error.message];
  }
  throw new Error('expected a 400');
};

describe('responses client: what it refuses, naming the field', () => {
  it.each([
    [{ input: 'x' }, 'model: model is required'],
    [{ model: 'm' }, 'input: input is required'],
    [{ model: 'm', input: 3 }, 'input: input is required'],
    [
      { model: 'm', input: 'x', max_output_tokens: 0 },
      'max_output_tokens: max_output_tokens must be at least 1',
    ],
    [{ model: 'm', input: 'x', temperature: 'hot' }, 'temperature:'],
    [{ model: 'm', input: [{ role: 'robot', content: 'x' }] }, 'input.0.role:'],
    [{ model: 'm', input: [{ role: 'user' }] }, 'input.0.content:'],
    [{ model: 'm', input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, 'input.0.content.0.text:'],
    [
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_video' }] }] },
      "input.0.content.0.type: unsupported content part 'input_video'",
    ],
    [
      { model: 'm', input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'x' }] }] },
      'input.0.content.0.type: a system message takes text only',
    ],
    [
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image' }] }] },
      'input.0.content.0.image_url: required',
    ],
    [{ model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'input.0.call_id:'],
    [{ model: 'm', input: [{ type: 'function_call_output', call_id: 'c' }] }, 'input.0.output:'],
    [{ model: 'm', input: 'x', tools: [{ type: 'function' }] }, 'tools.0.name:'],
    [{ model: 'm', input: 'x', tools: [{ name: 'f' }] }, 'tools.0.type: every tool needs a type'],
    [
      {
        model: 'm',
        input: 'x',
        tools: [{ type: 'function', name: 'f' }],
        tool_choice: { type: 'function', name: 'g' },
      },
      "tool_choice.name: no function or custom tool named 'g'",
    ],
    [
      { model: 'm', input: 'x', text: { format: { type: 'json_schema', schema: {} } } },
      'text.format.name: required',
    ],
    [{ model: 'm', input: [] }, 'input: give at least one message'],
  ])('%j → %s', (body, message) => {
    const [code, text] = refusal(body);
    expect(code).toBe('invalid_text_request');
    expect(text.startsWith(message)).toBe(true);
  });

  it.each([
    [
      { model: 'm', previous_response_id: 'resp_1', input: [] },
      'previous_response_id: Sluice keeps no responses',
    ],
    [{ model: 'm', conversation: 'conv_1', input: 'x' }, 'conversation: Sluice keeps no conversations'],
    [{ model: 'm', store: true, input: 'x' }, 'store: Sluice keeps no responses'],
    [{ model: 'm', background: true, input: 'x' }, 'background:'],
    [{ model: 'm', prompt: { id: 'pmpt_1' }, input: 'x' }, 'prompt: stored prompts live at OpenAI'],
    [
      { model: 'm', input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs'] }] },
      "tools.0.type: the built-in tool 'file_search'",
    ],
    [
      { model: 'm', input: 'x', tools: [{ type: 'code_interpreter' }] },
      "tools.0.type: the built-in tool 'code_interpreter'",
    ],
    [
      { model: 'm', input: 'x', tools: [{ type: 'mcp', server_label: 's' }] },
      "tools.0.type: the built-in tool 'mcp'",
    ],
    [
      { model: 'm', input: 'x', tools: [{ type: 'local_shell' }] },
      "tools.0.type: the built-in tool 'local_shell'",
    ],
    [
      { model: 'm', input: 'x', tools: [{ type: 'image_generation' }] },
      "tools.0.type: the built-in tool 'image_generation'",
    ],
    [
      { model: 'm', input: 'x', tools: [{ type: 'computer_use_preview' }] },
      "tools.0.type: the built-in tool 'computer_use_preview'",
    ],
    [
      { model: 'm', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } },
      "tool_choice.type: the built-in tool 'web_search'",
    ],
    [
      { model: 'm', input: 'x', tools: [{ type: 'web_search' }], tool_choice: 'required' },
      "tool_choice: 'required', but only hosted web search",
    ],
    [
      { model: 'm', input: [{ type: 'item_reference', id: 'msg_1' }] },
      'input.0: item_reference needs stored responses',
    ],
    [{ model: 'm', input: [{ type: 'compaction', encrypted_content: 'x' }] }, 'input.0: a compaction item'],
    [
      { model: 'm', input: [{ type: 'local_shell_call', call_id: 'c' }] },
      "input.0.type: 'local_shell_call' items",
    ],
    [
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
      'input.0.content.0.file_id:',
    ],
    [
      { model: 'm', input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
      'input.0.content.0.file_id:',
    ],
    [
      {
        model: 'm',
        input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://x/y.pdf' }] }],
      },
      'input.0.content.0.file_url:',
    ],
  ])('%j → %s', (body, message) => {
    const [code, text] = refusal(body);
    expect(code).toBe('responses_only');
    expect(text.startsWith(message)).toBe(true);
  });
});
