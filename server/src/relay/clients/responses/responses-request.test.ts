import { describe, expect, it } from 'vitest';
import { responsesClient } from './index.js';

const toHub = (body: Record<string, unknown>) => responsesClient.toHub(body, {});

const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'Get current temperature for a given location.',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string', description: 'City and country e.g. Bogotá, Colombia' } },
    required: ['location'],
    additionalProperties: false,
  },
  strict: true,
};

describe('responses client: documented requests into the hub', () => {
  it('reads a string input (the API reference’s first example)', () => {
    expect(
      toHub({ model: 'gpt-4.1', input: 'Tell me a three sentence bedtime story about a unicorn.' }),
    ).toEqual({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'Tell me a three sentence bedtime story about a unicorn.' }],
    });
  });

  it('reads the function-calling guide’s round trip: the tool, the call and its output', () => {
    const first = {
      model: 'gpt-4.1',
      input: [{ role: 'user', content: 'What is the weather like in Paris today?' }],
      tools: [WEATHER_TOOL],
    };
    const hubTool = {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Get current temperature for a given location.',
        parameters: WEATHER_TOOL.parameters,
        strict: true,
      },
    };
    expect(toHub(first)).toEqual({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'What is the weather like in Paris today?' }],
      tools: [hubTool],
    });
    const second = {
      ...first,
      input: [
        ...first.input,
        {
          type: 'function_call',
          id: 'fc_12345xyz',
          call_id: 'call_12345xyz',
          name: 'get_weather',
          arguments: '{"location":"Paris, France"}',
        },
        { type: 'function_call_output', call_id: 'call_12345xyz', output: '14' },
      ],
    };
    expect(toHub(second)['messages']).toEqual([
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

  it('reads the images guide’s image input', () => {
    const url =
      'https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg';
    const body = {
      model: 'gpt-4.1-mini',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: "what's in this image?" },
            { type: 'input_image', image_url: url },
          ],
        },
      ],
    };
    expect(toHub(body)['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: "what's in this image?" },
          { type: 'image_url', image_url: { url } },
        ],
      },
    ]);
  });

  it('reads the structured-outputs guide’s text.format as a json_schema response_format', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string' },
        date: { type: 'string' },
        participants: { type: 'array', items: { type: 'string' } },
      },
      required: ['name', 'date', 'participants'],
      additionalProperties: false,
    };
    const body = {
      model: 'gpt-4o-2024-08-06',
      input: [
        { role: 'system', content: 'Extract the event information.' },
        { role: 'user', content: 'Alice and Bob are going to a science fair on Friday.' },
      ],
      text: { format: { type: 'json_schema', name: 'calendar_event', schema, strict: true } },
    };
    expect(toHub(body)).toEqual({
      model: 'gpt-4o-2024-08-06',
      messages: [
        { role: 'system', content: 'Extract the event information.' },
        { role: 'user', content: 'Alice and Bob are going to a science fair on Friday.' },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'calendar_event', schema, strict: true } },
    });
    expect(toHub({ ...body, text: { format: { type: 'json_object' } } })['response_format']).toEqual({
      type: 'json_object',
    });
    expect(toHub({ ...body, text: { format: { type: 'text' } } })).not.toHaveProperty('response_format');
  });
});

describe('responses client: the rest of a request', () => {
  it('puts instructions first and maps the sampling, limit, user and stream fields', () => {
    const hub = toHub({
      model: 'm',
      instructions: 'Be brief.',
      input: 'Hi',
      max_output_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      safety_identifier: 'user-7',
      reasoning: { effort: 'minimal', summary: 'auto' },
      stream: true,
      include: ['reasoning.encrypted_content'],
      metadata: { trace: 'a' },
      store: false,
    });
    expect(hub).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      reasoning_effort: 'low',
      max_tokens: 300,
      temperature: 0.2,
      top_p: 0.9,
      user: 'user-7',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(toHub({ model: 'm', input: 'Hi', reasoning: { effort: 'xhigh' } })['reasoning_effort']).toBe(
      'high',
    );
    expect(toHub({ model: 'm', input: 'Hi', reasoning: { effort: 'none' } })).not.toHaveProperty(
      'reasoning_effort',
    );
    expect(toHub({ model: 'm', input: 'Hi', user: 'u', safety_identifier: 's' })['user']).toBe('u');
  });

  it('merges calls into the assistant text before them, drops reasoning, and turns developer into system', () => {
    const hub = toHub({
      model: 'm',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Rules' }] },
        { role: 'user', content: 'Do it' },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
        { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' },
        { type: 'reasoning', id: 'rs_2', summary: [{ type: 'summary_text', text: 'more' }] },
        { type: 'function_call', call_id: 'c2', name: 'cat', arguments: '{"f":"a"}' },
        { type: 'function_call_output', call_id: 'c1', output: 'a b' },
        { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'A' }] },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { role: 'assistant', content: 'Done.' },
      ],
    });
    expect(hub['messages']).toEqual([
      { role: 'system', content: 'Rules' },
      { role: 'user', content: 'Do it' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } },
          { id: 'c2', type: 'function', function: { name: 'cat', arguments: '{"f":"a"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'a b' },
      { role: 'tool', tool_call_id: 'c2', content: 'A' },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('moves images and files of tool outputs into one user message after the tool messages', () => {
    const hub = toHub({
      model: 'm',
      input: [
        { role: 'user', content: 'Look' },
        { type: 'function_call', call_id: 'c1', name: 'shot', arguments: '{}' },
        { type: 'function_call', call_id: 'c2', name: 'pdf', arguments: '{}' },
        {
          type: 'function_call_output',
          call_id: 'c1',
          output: [{ type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'high' }],
        },
        {
          type: 'function_call_output',
          call_id: 'c2',
          output: [
            { type: 'input_text', text: 'the report' },
            { type: 'input_file', filename: 'r.pdf', file_data: 'data:application/pdf;base64,JVBE' },
          ],
        },
        { role: 'user', content: 'Well?' },
      ],
    });
    expect((hub['messages'] as unknown[]).slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'The output is attached in the next message.' },
      { role: 'tool', tool_call_id: 'c2', content: 'the report' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Output of call c1:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'high' } },
          { type: 'text', text: 'Output of call c2:' },
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'r.pdf' } },
        ],
      },
      { role: 'user', content: 'Well?' },
    ]);
  });

  it('reads user files and audio into the hub’s parts', () => {
    const hub = toHub({
      model: 'm',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBE' },
            { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
          ],
        },
      ],
    });
    expect(hub['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBE', filename: 'a.pdf' } },
          { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
        ],
      },
    ]);
  });

  it('offers custom and namespaced tools as functions, and maps tool_choice', () => {
    const hub = toHub({
      model: 'm',
      input: 'Patch it',
      tools: [
        {
          type: 'custom',
          name: 'apply_patch',
          description: 'Edit files.',
          format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' },
        },
        {
          type: 'namespace',
          name: 'crm',
          description: 'CRM',
          tools: [{ type: 'function', name: 'find', parameters: { type: 'object' } }],
        },
        { type: 'web_search', external_web_access: false },
      ],
      tool_choice: { type: 'custom', name: 'apply_patch' },
      parallel_tool_calls: false,
    });
    expect(hub['tools']).toEqual([
      {
        type: 'function',
        function: {
          name: 'apply_patch',
          description: 'Edit files.\n\nPass the raw input text as the string field `input`.',
          parameters: {
            type: 'object',
            properties: {
              input: {
                type: 'string',
                description: 'The raw input text. It must follow this lark grammar:\nstart: "x"',
              },
            },
            required: ['input'],
            additionalProperties: false,
          },
        },
      },
      { type: 'function', function: { name: 'crm__find', parameters: { type: 'object' } } },
    ]);
    expect(hub['tool_choice']).toEqual({ type: 'function', function: { name: 'apply_patch' } });
    expect(hub['parallel_tool_calls']).toBe(false);
    const history = toHub({
      model: 'm',
      tools: [{ type: 'custom', name: 'apply_patch' }],
      input: [
        {
          type: 'custom_tool_call',
          call_id: 'c1',
          name: 'apply_patch',
          input: '*** Begin Patch\n*** End Patch',
        },
        { type: 'custom_tool_call_output', call_id: 'c1', output: 'ok' },
        { type: 'function_call', call_id: 'c2', name: 'find', namespace: 'crm', arguments: '{}' },
      ],
    });
    expect(history['messages']).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'apply_patch', arguments: '{"input":"*** Begin Patch\\n*** End Patch"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'crm__find', arguments: '{}' } }],
      },
    ]);
  });

  it('narrows allowed_tools, and leaves tools out when only web search was offered', () => {
    const tools = [
      { type: 'function', name: 'a' },
      { type: 'function', name: 'b' },
    ];
    const hub = toHub({
      model: 'm',
      input: 'x',
      tools,
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'b' }] },
    });
    expect(hub['tools']).toEqual([{ type: 'function', function: { name: 'b' } }]);
    expect(hub['tool_choice']).toBe('required');
    const searchOnly = toHub({
      model: 'm',
      input: 'x',
      tools: [{ type: 'web_search_preview' }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
    });
    expect(searchOnly).toEqual({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
  });
});
