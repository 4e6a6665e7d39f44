import { describe, expect, it } from 'vitest';
import { createSseParser } from '../../../lib/sse.js';
import type { ClientContext } from '../client-format.js';
import fixture from './codex-request.fixture.json' with { type: 'json' };
import { needsResponsesUpstream, preferResponsesUpstream, responsesClient } from './index.js';

/**
 * Codex CLI's requests, built from its source (openai/codex, codex-rs): `ResponsesApiRequest`
 * (codex-api/src/common.rs: model, instructions, input, tools, tool_choice "auto",
 * parallel_tool_calls, reasoning, store false, stream true, include, prompt_cache_key, text,
 * client_metadata), the `ResponseItem`s of its history (protocol/src/models.rs) and its tools
 * (tools/src: function tools with strict false, `apply_patch` as a custom tool with a Lark grammar,
 * `web_search` with external_web_access false, which Codex offers by default).
 */
const first = fixture.first as unknown as Record<string, unknown>;
const followUp = { ...first, input: [...fixture.first.input, ...fixture.history] } as Record<string, unknown>;

const context = (request: Record<string, unknown>): ClientContext => ({
  model: 'gpt-5.1-codex',
  requestId: 'req-codex',
  request,
  created: 1_760_000_000,
});

describe('responses client: what Codex CLI sends', () => {
  it('translates its first turn: instructions, developer and user messages, its tools', () => {
    const hub = responsesClient.toHub(first, {});
    expect(hub['messages']).toEqual([
      { role: 'system', content: fixture.first.instructions },
      { role: 'system', content: fixture.first.input[0]!.content[0]!.text },
      {
        role: 'user',
        content: fixture.first.input[1]!.content.map((part) => ({ type: 'text', text: part.text })),
      },
      {
        role: 'user',
        content: [{ type: 'text', text: 'Add a README and show me the screenshot in shot.png' }],
      },
    ]);
    const tools = hub['tools'] as { function: { name: string; parameters: unknown; strict?: boolean } }[];
    expect(tools.map((tool) => tool.function.name)).toEqual([
      'exec_command',
      'write_stdin',
      'update_plan',
      'apply_patch',
      'view_image',
    ]);
    expect(tools[0]!.function.strict).toBe(false);
    expect(JSON.stringify(tools[3]!.function.parameters)).toContain('begin_patch hunk+ end_patch');
    expect(hub).toMatchObject({
      model: 'gpt-5.1-codex',
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning_effort: 'medium',
      stream: true,
      stream_options: { include_usage: true },
    });
    for (const field of ['store', 'include', 'prompt_cache_key', 'text', 'client_metadata', 'reasoning'])
      expect(hub).not.toHaveProperty(field);
    expect(needsResponsesUpstream(first)).toBeUndefined();
    expect(preferResponsesUpstream(first)).toBe('tools.4');
  });

  it('translates a later turn: reasoning dropped, calls merged, outputs, the image of view_image', () => {
    const hub = responsesClient.toHub(followUp, {});
    const messages = (hub['messages'] as unknown[]).slice(4);
    expect(messages).toEqual([
      {
        role: 'assistant',
        content: "I'll look at the project first.",
        tool_calls: [
          {
            id: 'call_Ls1',
            type: 'function',
            function: { name: 'exec_command', arguments: '{"cmd":"ls","workdir":"/home/dev/project"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_Ls1', content: fixture.history[3]!.output },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_Pa2',
            type: 'function',
            function: {
              name: 'apply_patch',
              arguments: JSON.stringify({ input: fixture.history[4]!.input }),
            },
          },
        ],
      },
      {
        role: 'tool',
        tool_call_id: 'call_Pa2',
        content: 'Success. Updated the following files:\nA README.md\n',
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_Vi3',
            type: 'function',
            function: { name: 'view_image', arguments: '{"path":"shot.png"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_Vi3', content: 'The output is attached in the next message.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Output of call call_Vi3:' },
          {
            type: 'image_url',
            image_url: {
              url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk',
              detail: 'high',
            },
          },
        ],
      },
      { role: 'assistant', content: 'Added README.md; the screenshot shows a login form.' },
      { role: 'user', content: [{ type: 'text', text: 'Thanks, now run the tests.' }] },
    ]);
    expect(needsResponsesUpstream(followUp)).toBeUndefined();
  });

  it('takes a model without reasoning (reasoning null, include empty)', () => {
    const hub = responsesClient.toHub({ ...first, reasoning: null, include: [] }, {});
    expect(hub).not.toHaveProperty('reasoning_effort');
  });

  it('answers apply_patch as a custom_tool_call and exec_command as a function_call, streamed', () => {
    const writer = responsesClient.streamWriter(context(first));
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n';
    const args = JSON.stringify({ input: patch });
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const text = [
      writer.chunk(chunk({ role: 'assistant', content: '' })),
      writer.chunk(chunk({ content: 'Editing.' })),
      writer.chunk(
        chunk({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'apply_patch', arguments: '' } },
          ],
        }),
      ),
      writer.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 20) } }] })),
      writer.chunk(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(20) } }] })),
      writer.chunk(
        chunk({
          tool_calls: [
            {
              index: 1,
              id: 'call_2',
              type: 'function',
              function: { name: 'exec_command', arguments: '{"cmd":"ls"}' },
            },
          ],
        }),
      ),
      writer.chunk(chunk({}, 'tool_calls')),
      writer.chunk({
        id: 'chatcmpl-1',
        object: 'chat.completion.chunk',
        choices: [],
        usage: {
          prompt_tokens: 900,
          completion_tokens: 40,
          total_tokens: 940,
          prompt_tokens_details: { cached_tokens: 512 },
        },
      }),
      writer.end(),
    ].join('');
    const events = createSseParser()
      .feed(text)
      .map((event) => JSON.parse(event.data) as Record<string, unknown>);
    const done = events
      .filter((event) => event['type'] === 'response.output_item.done')
      .map((event) => event['item']);
    expect(done).toEqual([
      expect.objectContaining({
        type: 'message',
        role: 'assistant',
        content: [expect.objectContaining({ type: 'output_text', text: 'Editing.' })],
      }),
      expect.objectContaining({
        type: 'custom_tool_call',
        call_id: 'call_1',
        name: 'apply_patch',
        input: patch,
      }),
      expect.objectContaining({
        type: 'function_call',
        call_id: 'call_2',
        name: 'exec_command',
        arguments: '{"cmd":"ls"}',
      }),
    ]);
    const completed = events.at(-1)!;
    expect(completed['type']).toBe('response.completed');
    expect((completed['response'] as Record<string, unknown>)['usage']).toEqual({
      input_tokens: 900,
      input_tokens_details: { cached_tokens: 512 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 940,
    });
    // The history Codex sends back next turn translates again.
    expect(() =>
      responsesClient.toHub({ ...first, input: [...fixture.first.input, ...done] }, {}),
    ).not.toThrow();
  });
});
