import { describe, expect, it } from 'vitest';
import type { ClientContext } from '../client-format.js';
import { responsesClient } from './index.js';

const context = (request: Record<string, unknown>): ClientContext => ({
  model: 'gpt-4.1',
  requestId: 'req-1',
  request,
  created: 1741476542,
});

const answer = (message: Record<string, unknown>, finish = 'stop') => ({
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
});

type Response = { output: Record<string, unknown>[] } & Record<string, unknown>;
const fromHub = (completion: Record<string, unknown>, request: Record<string, unknown>) =>
  responsesClient.fromHub(completion, context(request)) as Response;

describe('responses client: hub answers as responses', () => {
  it('echoes the request: instructions, tools, tool_choice, sampling, text, reasoning, metadata, user', () => {
    const request = {
      model: 'gpt-4.1',
      input: 'x',
      instructions: 'Be brief.',
      tools: [{ type: 'function', name: 'f' }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.5,
      top_p: 0.8,
      max_output_tokens: 64,
      text: { format: { type: 'json_object' } },
      reasoning: { effort: 'low' },
      metadata: { k: 'v' },
      user: 'u1',
    };
    const response = fromHub(answer({ content: '{}' }), request);
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-4.1',
      instructions: 'Be brief.',
      tools: request.tools,
      tool_choice: 'required',
      parallel_tool_calls: false,
      temperature: 0.5,
      top_p: 0.8,
      max_output_tokens: 64,
      text: request.text,
      reasoning: request.reasoning,
      metadata: { k: 'v' },
      user: 'u1',
      store: false,
      error: null,
      usage: null,
    });
  });

  it('writes custom and namespaced calls as the client offered them; a call without id gets one', () => {
    const request = {
      model: 'm',
      input: 'x',
      tools: [
        { type: 'custom', name: 'apply_patch' },
        { type: 'namespace', name: 'crm', tools: [{ type: 'custom', name: 'note' }] },
      ],
    };
    const response = fromHub(
      answer(
        {
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch"}' },
            },
            { id: 'c2', type: 'function', function: { name: 'crm__note', arguments: 'not json' } },
            { type: 'function', function: { name: 'other', arguments: { a: 1 } } },
          ],
        },
        'tool_calls',
      ),
      request,
    );
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^ctc_/) as unknown,
        type: 'custom_tool_call',
        status: 'completed',
        call_id: 'c1',
        name: 'apply_patch',
        input: '*** Begin Patch',
      },
      {
        id: expect.stringMatching(/^ctc_/) as unknown,
        type: 'custom_tool_call',
        status: 'completed',
        call_id: 'c2',
        name: 'note',
        namespace: 'crm',
        input: 'not json',
      },
      {
        id: expect.stringMatching(/^fc_/) as unknown,
        type: 'function_call',
        status: 'completed',
        arguments: '{"a":1}',
        call_id: expect.stringMatching(/^call_/) as unknown,
        name: 'other',
      },
    ]);
    const ids = response.output.map((item) => item['id']);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('answers an empty hub answer with no output, and reads the `reasoning` field too', () => {
    expect(fromHub({ object: 'chat.completion', choices: [] }, { model: 'm', input: 'x' }).output).toEqual(
      [],
    );
    const response = fromHub(answer({ content: 'ok', reasoning: 'hm' }), { model: 'm', input: 'x' });
    expect(response.output.map((item) => item['type'])).toEqual(['reasoning', 'message']);
  });

  it('says errors in OpenAI’s shape', () => {
    expect(
      responsesClient.errorBody({
        status: 429,
        message: 'Slow down',
        type: 'one_api_error',
        code: 'rate_limit_exceeded',
      }),
    ).toEqual({
      error: { message: 'Slow down', type: 'one_api_error', param: null, code: 'rate_limit_exceeded' },
    });
    expect(responsesClient.errorBody({ status: 500, message: 'x', type: 'sluice_error', code: '' })).toEqual({
      error: { message: 'x', type: 'sluice_error', param: null, code: null },
    });
  });
});
