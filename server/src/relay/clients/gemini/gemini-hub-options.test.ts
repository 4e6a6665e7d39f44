import { describe, expect, it } from 'vitest';
import { geminiToHub } from './gemini-to-hub.js';

const route = { model: 'gemini-2.5-flash' };

describe('geminiToHub: tool config', () => {
  it('reads the function calling modes of the cookbook (lower-case modes, allowed names)', () => {
    const lights = {
      function_declarations: [
        {
          name: 'enable_lights',
          description: 'Turn on the lighting system.',
          parameters: { type: 'object' },
        },
        {
          name: 'set_light_color',
          parameters: { type: 'object', properties: { rgb_hex: { type: 'string' } } },
        },
        { name: 'stop_lights', parameters: { type: 'object' } },
      ],
    };
    const body = (config: Record<string, unknown>) => ({
      contents: 'x',
      tools: [lights],
      tool_config: { function_calling_config: config },
    });
    expect(geminiToHub(body({ mode: 'none' }), route)['tool_choice']).toBe('none');
    expect(geminiToHub(body({ mode: 'auto' }), route)['tool_choice']).toBe('auto');
    const any = geminiToHub(
      body({ mode: 'any', allowed_function_names: ['set_light_color', 'stop_lights'] }),
      route,
    );
    expect(any['tool_choice']).toBe('required');
    expect((any['tools'] as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual([
      'set_light_color',
      'stop_lights',
    ]);
    expect(
      geminiToHub(body({ mode: 'ANY', allowedFunctionNames: ['stop_lights'] }), route)['tool_choice'],
    ).toEqual({
      type: 'function',
      function: { name: 'stop_lights' },
    });
    expect(geminiToHub(body({ mode: 'ANY' }), route)['tool_choice']).toBe('required');
    const enable = (geminiToHub(body({}), route)['tools'] as { function: unknown }[])[0];
    expect(enable).toEqual({
      type: 'function',
      function: {
        name: 'enable_lights',
        description: 'Turn on the lighting system.',
        parameters: { type: 'object', properties: {} },
      },
    });
  });
});

describe('geminiToHub: generation config', () => {
  it('maps sampling, limits and stops; a stream from the route asks for usage', () => {
    const body = {
      contents: 'Hi',
      generationConfig: {
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        maxOutputTokens: 100,
        stopSequences: ['END'],
        candidateCount: 1,
        seed: 7,
        presencePenalty: 0.5,
        frequencyPenalty: 0.25,
      },
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    };
    expect(geminiToHub(body, { model: 'm', stream: true })).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      max_tokens: 100,
      stop: ['END'],
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: 0.25,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it.each([
    [{ thinkingBudget: 0 }, undefined],
    [{ thinkingBudget: -1 }, 'medium'],
    [{ thinkingBudget: 512 }, 'low'],
    [{ thinkingBudget: 4095 }, 'low'],
    [{ thinkingBudget: 8192 }, 'medium'],
    [{ thinkingBudget: 16384 }, 'high'],
    [{ thinkingLevel: 'HIGH' }, 'high'],
    [{ thinkingLevel: 'low' }, 'low'],
    [{ thinkingLevel: 'MINIMAL' }, 'low'],
    [{ includeThoughts: true }, undefined],
  ])('maps thinkingConfig %j to reasoning_effort %s', (thinkingConfig, effort) => {
    expect(
      geminiToHub({ contents: 'x', generationConfig: { thinkingConfig } }, route)['reasoning_effort'],
    ).toBe(effort);
  });
});
