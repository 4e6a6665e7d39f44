import { describe, expect, it } from 'vitest';
import type { ClientContext } from '../client-format.js';
import { geminiFromHub, geminiUsageMetadata } from './gemini-from-hub.js';

const context = (request: Record<string, unknown> = {}): ClientContext => ({
  model: 'gemini-2.5-flash',
  requestId: 'req-1',
  request,
  created: 1_700_000_000,
});

const completion = (message: Record<string, unknown>, finish = 'stop', usage?: Record<string, unknown>) => ({
  id: 'chatcmpl-abc',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finish }],
  ...(usage ? { usage } : {}),
});

describe('geminiFromHub', () => {
  it('answers a text reply as Google’s documented response (candidates, usageMetadata, modelVersion)', () => {
    const hub = completion({ content: 'Meow 😺 \n' }, 'stop', {
      prompt_tokens: 8,
      completion_tokens: 17,
      total_tokens: 25,
    });
    expect(geminiFromHub(hub, context())).toEqual({
      candidates: [
        { content: { parts: [{ text: 'Meow 😺 \n' }], role: 'model' }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: { promptTokenCount: 8, candidatesTokenCount: 17, totalTokenCount: 25 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'chatcmpl-abc',
    });
  });

  it('answers JSON mode as its text, as Google does', () => {
    const recipes = '[{"recipeName":"Chocolate Chip Cookies","ingredients":["1 cup butter"]}]';
    const hub = completion({ content: recipes }, 'stop');
    expect(geminiFromHub(hub, context())['candidates']).toEqual([
      { content: { parts: [{ text: recipes }], role: 'model' }, finishReason: 'STOP', index: 0 },
    ]);
  });

  it('answers tool calls as functionCall parts with their arguments parsed and their ids', () => {
    const hub = completion(
      {
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: {
              name: 'find_theaters',
              arguments: '{"location":"Mountain View, CA","movie":"Barbie"}',
            },
          },
          { id: 'call_2', type: 'function', function: { name: 'enable_lights', arguments: '' } },
        ],
      },
      'tool_calls',
    );
    expect(geminiFromHub(hub, context())['candidates']).toEqual([
      {
        content: {
          parts: [
            {
              functionCall: {
                name: 'find_theaters',
                args: { location: 'Mountain View, CA', movie: 'Barbie' },
                id: 'call_1',
              },
            },
            { functionCall: { name: 'enable_lights', args: {}, id: 'call_2' } },
          ],
          role: 'model',
        },
        finishReason: 'STOP',
        index: 0,
      },
    ]);
  });

  it('answers reasoning as a thought part only when the request asked for thoughts', () => {
    const hub = completion({ content: 'Four.', reasoning_content: 'Two plus two…' });
    const asked = { generationConfig: { thinkingConfig: { includeThoughts: true } } };
    expect((geminiFromHub(hub, context(asked))['candidates'] as { content: unknown }[])[0]?.content).toEqual({
      parts: [{ text: 'Two plus two…', thought: true }, { text: 'Four.' }],
      role: 'model',
    });
    const snake = { generation_config: { thinking_config: { include_thoughts: true } } };
    const reasoning = completion({ content: 'Four.', reasoning: 'Hm.' });
    expect(
      (geminiFromHub(reasoning, context(snake))['candidates'] as { content: unknown }[])[0]?.content,
    ).toEqual({
      parts: [{ text: 'Hm.', thought: true }, { text: 'Four.' }],
      role: 'model',
    });
    expect((geminiFromHub(hub, context())['candidates'] as { content: unknown }[])[0]?.content).toEqual({
      parts: [{ text: 'Four.' }],
      role: 'model',
    });
  });

  it.each([
    ['stop', 'STOP'],
    ['length', 'MAX_TOKENS'],
    ['tool_calls', 'STOP'],
    ['content_filter', 'SAFETY'],
    [null, 'STOP'],
  ])('maps finish_reason %s to %s', (finish, reason) => {
    const hub = { choices: [{ index: 0, message: { content: 'x' }, finish_reason: finish }] };
    expect((geminiFromHub(hub, context())['candidates'] as { finishReason: string }[])[0]?.finishReason).toBe(
      reason,
    );
  });

  it('answers an empty reply with an empty candidate and the request id', () => {
    expect(geminiFromHub({ choices: [] }, context())).toEqual({
      candidates: [{ content: { parts: [], role: 'model' }, finishReason: 'STOP', index: 0 }],
      modelVersion: 'gemini-2.5-flash',
      responseId: 'req-1',
    });
  });
});

describe('geminiUsageMetadata', () => {
  it('counts thoughts apart from the candidates and reports cached tokens', () => {
    expect(
      geminiUsageMetadata({
        prompt_tokens: 100,
        completion_tokens: 50,
        total_tokens: 150,
        prompt_tokens_details: { cached_tokens: 60 },
        completion_tokens_details: { reasoning_tokens: 30 },
      }),
    ).toEqual({
      promptTokenCount: 100,
      candidatesTokenCount: 20,
      totalTokenCount: 150,
      cachedContentTokenCount: 60,
      thoughtsTokenCount: 30,
    });
    expect(geminiUsageMetadata({ prompt_tokens: 3, completion_tokens: 4 })).toEqual({
      promptTokenCount: 3,
      candidatesTokenCount: 4,
      totalTokenCount: 7,
    });
    expect(geminiUsageMetadata(null)).toBeUndefined();
  });
});
