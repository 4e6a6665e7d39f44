import { describe, expect, it } from 'vitest';
import type { ClientContext } from '../client-format.js';
import { geminiStreamWriter } from './gemini-stream-writer.js';

const context = (request: Record<string, unknown> = {}): ClientContext => ({
  model: 'gemini-2.5-flash',
  requestId: 'req-1',
  request,
  created: 1_700_000_000,
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-abc',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'gpt-4o',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});

const usageChunk = (usage: Record<string, unknown>) => ({
  id: 'chatcmpl-abc',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'gpt-4o',
  choices: [],
  usage,
});

/** The events of a text: each `data: <json>\r\n\r\n`, parsed. */
const events = (text: string): unknown[] => {
  expect(text.endsWith('\r\n\r\n') || text === '').toBe(true);
  return text
    .split('\r\n\r\n')
    .filter((event) => event !== '')
    .map((event) => {
      expect(event.startsWith('data: ')).toBe(true);
      return JSON.parse(event.slice(6)) as unknown;
    });
};

const common = { modelVersion: 'gemini-2.5-flash', responseId: 'chatcmpl-abc' };

describe('geminiStreamWriter', () => {
  it('sends text as it comes, then the finish and the usage in one last event', () => {
    const writer = geminiStreamWriter(context());
    expect(writer.chunk(chunk({ role: 'assistant', content: '' }))).toBe('');
    expect(events(writer.chunk(chunk({ content: 'Hello' })))).toEqual([
      { candidates: [{ content: { parts: [{ text: 'Hello' }], role: 'model' }, index: 0 }], ...common },
    ]);
    expect(events(writer.chunk(chunk({ content: ' there' })))).toHaveLength(1);
    expect(writer.chunk(chunk({}, 'stop'))).toBe('');
    const last = writer.chunk(usageChunk({ prompt_tokens: 8, completion_tokens: 2, total_tokens: 10 }));
    expect(events(last)).toEqual([
      {
        candidates: [{ content: { parts: [], role: 'model' }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 2, totalTokenCount: 10 },
        ...common,
      },
    ]);
    expect(writer.end()).toBe('');
    expect(writer.chunk(chunk({ content: 'late' }))).toBe('');
  });

  it('sends the last event at once when the usage comes with the finish, text included', () => {
    const writer = geminiStreamWriter(context());
    const text = writer.chunk({
      ...chunk({ content: 'Done.' }, 'length'),
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });
    expect(events(text)).toEqual([
      { candidates: [{ content: { parts: [{ text: 'Done.' }], role: 'model' }, index: 0 }], ...common },
      {
        candidates: [{ content: { parts: [], role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
        ...common,
      },
    ]);
    expect(writer.end()).toBe('');
  });

  it('ends at end() when the usage never comes (no usageMetadata then), STOP without a finish', () => {
    const writer = geminiStreamWriter(context());
    writer.chunk(chunk({ content: 'a' }));
    expect(events(writer.end())).toEqual([
      { candidates: [{ content: { parts: [], role: 'model' }, finishReason: 'STOP', index: 0 }], ...common },
    ]);
    expect(writer.end()).toBe('');
  });

  it('gathers function calls and sends them whole in the last event', () => {
    const writer = geminiStreamWriter(context());
    const pieces = [
      chunk({
        role: 'assistant',
        content: null,
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      chunk({
        tool_calls: [
          { index: 1, id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      }),
      chunk({}, 'tool_calls'),
    ];
    for (const piece of pieces) expect(writer.chunk(piece)).toBe('');
    expect(
      events(writer.chunk(usageChunk({ prompt_tokens: 5, completion_tokens: 9, total_tokens: 14 }))),
    ).toEqual([
      {
        candidates: [
          {
            content: {
              parts: [
                { functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'call_1' } },
                { functionCall: { name: 'get_time', args: {}, id: 'call_2' } },
              ],
              role: 'model',
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 9, totalTokenCount: 14 },
        ...common,
      },
    ]);
  });

  it('sends reasoning as thought parts when the request asked for thoughts, and drops it otherwise', () => {
    const asked = geminiStreamWriter(
      context({ generationConfig: { thinkingConfig: { includeThoughts: true } } }),
    );
    expect(events(asked.chunk(chunk({ reasoning_content: 'Hm' })))).toEqual([
      {
        candidates: [{ content: { parts: [{ text: 'Hm', thought: true }], role: 'model' }, index: 0 }],
        ...common,
      },
    ]);
    expect(events(asked.chunk(chunk({ reasoning: 'm' })))).toHaveLength(1);
    const plain = geminiStreamWriter(context());
    expect(plain.chunk(chunk({ reasoning_content: 'Hm' }))).toBe('');
  });

  it('reports the thoughts and cached tokens of the usage', () => {
    const writer = geminiStreamWriter(context());
    writer.chunk(chunk({}, 'stop'));
    const last = events(
      writer.chunk(
        usageChunk({
          prompt_tokens: 10,
          completion_tokens: 30,
          total_tokens: 40,
          prompt_tokens_details: { cached_tokens: 4 },
          completion_tokens_details: { reasoning_tokens: 20 },
        }),
      ),
    )[0] as { usageMetadata: unknown };
    expect(last.usageMetadata).toEqual({
      promptTokenCount: 10,
      candidatesTokenCount: 10,
      totalTokenCount: 40,
      cachedContentTokenCount: 4,
      thoughtsTokenCount: 20,
    });
  });

  it('sends an error mid-stream as one Google error event, and nothing after it', () => {
    const writer = geminiStreamWriter(context());
    writer.chunk(chunk({ content: 'a' }));
    const error = writer.error({
      message: 'The model is overloaded.',
      type: 'UNAVAILABLE',
      code: 'UNAVAILABLE',
    });
    expect(events(error)).toEqual([
      { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
    ]);
    expect(writer.error({ message: 'again', type: 'x', code: 'y' })).toBe('');
    expect(writer.end()).toBe('');
    expect(writer.chunk(chunk({ content: 'b' }))).toBe('');
  });

  it('names the status of OpenAI-style errors', () => {
    const rate = geminiStreamWriter(context()).error({
      message: 'slow down',
      type: 'rate_limit_error',
      code: '',
    });
    expect(events(rate)).toEqual([
      { error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' } },
    ]);
    const unknown = geminiStreamWriter(context()).error({
      message: 'boom',
      type: 'upstream_error',
      code: '',
    });
    expect(events(unknown)).toEqual([{ error: { code: 500, message: 'boom', status: 'INTERNAL' } }]);
  });
});
