import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import { RESPONSES_ONLY, needsResponsesUpstream, preferResponsesUpstream, responsesClient } from './index.js';

/** The code of toHub's refusal of a body, or undefined when it translates. */
const refusalCode = (body: Record<string, unknown>): string | undefined => {
  try {
    responsesClient.toHub(body, {});
    return undefined;
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
};

const base = { model: 'm', input: 'Hi' };

/** Bodies and the field only a Responses upstream could honour (undefined: the hub takes them). */
const CASES: readonly [Record<string, unknown>, string | undefined][] = [
  [base, undefined],
  [{ ...base, store: false, previous_response_id: null, conversation: null }, undefined],
  [{ ...base, previous_response_id: 'resp_1' }, 'previous_response_id'],
  [{ ...base, conversation: { id: 'conv_1' } }, 'conversation'],
  [{ ...base, store: true }, 'store'],
  [{ ...base, background: true }, 'background'],
  [{ ...base, prompt: { id: 'pmpt_1' } }, 'prompt'],
  [{ ...base, tools: [{ type: 'function', name: 'f' }, { type: 'web_search' }] }, undefined],
  [{ ...base, tools: [{ type: 'function', name: 'f' }, { type: 'file_search' }] }, 'tools.1'],
  [{ ...base, tools: [{ type: 'web_search' }], tool_choice: 'required' }, 'tool_choice'],
  [{ ...base, tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } }, 'tool_choice'],
  [
    {
      ...base,
      tools: [{ type: 'function', name: 'f' }],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'mcp' }] },
    },
    'tool_choice',
  ],
  [
    {
      ...base,
      tools: [{ type: 'function', name: 'f' }],
      tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'web_search' }] },
    },
    undefined,
  ],
  [
    {
      ...base,
      tools: [{ type: 'function', name: 'f' }, { type: 'web_search' }],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'web_search' }] },
    },
    'tool_choice',
  ],
  [
    {
      ...base,
      input: [
        { type: 'item_reference', id: 'msg_1' },
        { role: 'user', content: 'x' },
      ],
    },
    'input.0',
  ],
  [
    {
      ...base,
      input: [
        { role: 'user', content: 'x' },
        { type: 'compaction', encrypted_content: 'e' },
      ],
    },
    'input.1',
  ],
  [
    { ...base, input: [{ type: 'image_generation_call', id: 'ig', result: 'b64', status: 'completed' }] },
    'input.0',
  ],
  [
    { ...base, input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
    'input.0.content.0',
  ],
  [
    {
      ...base,
      input: [
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'c',
          output: [{ type: 'input_file', file_url: 'https://x/a.pdf' }],
        },
      ],
    },
    'input.1.output.0',
  ],
  [
    {
      ...base,
      input: [
        { type: 'additional_tools', role: 'developer', tools: [{ type: 'code_interpreter' }] },
        { role: 'user', content: 'x' },
      ],
    },
    'input.0.tools.0',
  ],
  [
    {
      ...base,
      input: [
        { type: 'reasoning', summary: [], encrypted_content: 'gAAA' },
        { role: 'user', content: 'x' },
      ],
    },
    undefined,
  ],
];

describe('responses client: which upstream a body needs', () => {
  it.each(CASES)('%j → %s, and toHub refuses it as responses_only exactly then', (body, field) => {
    expect(needsResponsesUpstream(body)).toBe(field);
    expect(refusalCode(body)).toBe(field === undefined ? undefined : RESPONSES_ONLY);
  });

  it('leaves a body that is wrong anywhere to toHub’s own 400', () => {
    const body = { ...base, tools: [{ type: 'namespace', name: 'n', tools: [{ type: 'mcp' }] }] };
    expect(needsResponsesUpstream(body)).toBeUndefined();
    expect(refusalCode(body)).toBe('invalid_text_request');
    const required = { ...base, tool_choice: 'required' };
    expect(needsResponsesUpstream(required)).toBeUndefined();
    expect(refusalCode(required)).toBe('invalid_text_request');
  });

  it('prefers a Responses upstream for hosted web search and OpenAI’s encrypted reasoning', () => {
    expect(preferResponsesUpstream(base)).toBeUndefined();
    expect(
      preferResponsesUpstream({
        ...base,
        tools: [{ type: 'function', name: 'f' }, { type: 'web_search_preview' }],
      }),
    ).toBe('tools.1');
    expect(
      preferResponsesUpstream({
        ...base,
        input: [
          { role: 'user', content: 'x' },
          { type: 'reasoning', summary: [], encrypted_content: 'gAAA' },
        ],
      }),
    ).toBe('input.1');
    expect(
      preferResponsesUpstream({
        ...base,
        input: [{ type: 'reasoning', summary: [], encrypted_content: null }],
      }),
    ).toBeUndefined();
  });
});
