import { describe, expect, it } from 'vitest';
import {
  buildChatRequest,
  splitDataUrl,
  takesImages,
  type ChatSettings,
  type SentTurn,
} from './chat-request.js';

const IMAGE = 'data:image/png;base64,iVBORw0KGgo=';
const TURNS: SentTurn[] = [
  { role: 'user', text: 'What is this?', images: [IMAGE] },
  { role: 'assistant', text: 'A pixel.' },
  { role: 'user', text: 'Sure?' },
];
const SETTINGS: ChatSettings = {
  format: 'openai',
  model: 'gpt-4o',
  system: 'Be brief.',
  temperature: 0.3,
  maxTokens: 200,
};

describe('buildChatRequest', () => {
  it('sends OpenAI chat with the system message, image_url parts and the usage chunk asked for', () => {
    const request = buildChatRequest({ ...SETTINGS, effort: 'low' }, TURNS, 'sk-abc');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers['authorization']).toBe('Bearer sk-abc');
    expect(request.body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: IMAGE } },
          ],
        },
        { role: 'assistant', content: 'A pixel.' },
        { role: 'user', content: 'Sure?' },
      ],
      temperature: 0.3,
      max_tokens: 200,
      reasoning_effort: 'low',
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('leaves out what is not set', () => {
    const request = buildChatRequest({ format: 'openai', model: 'm', system: ' ' }, [TURNS[2]!], 'sk-x');
    expect(request.body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Sure?' }],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends Anthropic Messages with the system apart, base64 images and a max_tokens', () => {
    const request = buildChatRequest(
      { ...SETTINGS, format: 'anthropic', maxTokens: undefined },
      TURNS,
      'sk-abc',
    );
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
    expect(request.body).toEqual({
      model: 'gpt-4o',
      system: 'Be brief.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'text', text: 'What is this?' },
          ],
        },
        { role: 'assistant', content: 'A pixel.' },
        { role: 'user', content: 'Sure?' },
      ],
      max_tokens: 4096,
      temperature: 0.3,
      stream: true,
    });
  });

  it("turns the effort into Anthropic's thinking budget, within max_tokens and without a temperature", () => {
    const body = buildChatRequest(
      { ...SETTINGS, format: 'anthropic', effort: 'medium' },
      TURNS,
      'sk-abc',
    ).body;
    expect(body['thinking']).toEqual({ type: 'enabled', budget_tokens: 4096 });
    expect(body['max_tokens']).toBe(5120);
    expect(body['temperature']).toBeUndefined();
  });

  it('sends OpenAI Responses with instructions, typed input parts and the effort', () => {
    const request = buildChatRequest({ ...SETTINGS, format: 'responses', effort: 'high' }, TURNS, 'sk-abc');
    expect(request.path).toBe('/v1/responses');
    expect(request.body).toEqual({
      model: 'gpt-4o',
      instructions: 'Be brief.',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: IMAGE },
          ],
        },
        { role: 'assistant', content: [{ type: 'output_text', text: 'A pixel.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Sure?' }] },
      ],
      temperature: 0.3,
      max_output_tokens: 200,
      reasoning: { effort: 'high' },
      stream: true,
    });
  });
});

describe('splitDataUrl and takesImages', () => {
  it('splits a data URL', () => {
    expect(splitDataUrl('data:image/jpeg;base64,/9j/4A==')).toEqual({
      mediaType: 'image/jpeg',
      data: '/9j/4A==',
    });
  });

  it('knows vision models by name', () => {
    for (const model of ['gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash', 'qwen-vl-max', 'glm-4v'])
      expect(takesImages(model), model).toBe(true);
    for (const model of ['gpt-3.5-turbo', 'text-embedding-3-small', 'deepseek-chat'])
      expect(takesImages(model), model).toBe(false);
  });
});
