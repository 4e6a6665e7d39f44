import { ApiError, FunctionCallingConfigMode, GoogleGenAI, ThinkingLevel, Type } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppError } from '../../../lib/app-error.js';
import { listenHandler, type Listening } from '../../../test-support/listen.js';
import type { ClientContext } from '../client-format.js';
import { geminiClient, geminiCountAnswer, readGeminiCountRequest } from './index.js';

/**
 * The official @google/genai SDK against a loopback server that reads its requests with the
 * translator and answers with the translator's output: what Gemini's own clients send is read, and
 * what Sluice answers is read by them as Google's.
 */
interface Reply {
  completion?: Record<string, unknown>;
  chunks?: Record<string, unknown>[];
  /** The writer's end or error after the chunks. */
  streamError?: { message: string; type: string; code: string };
  count?: number;
}

let reply: Reply = {};
let hub: Record<string, unknown> | undefined;
let server: Listening;

const PATH = /^\/v1beta\/models\/([^:]+):(generateContent|streamGenerateContent|countTokens)(\?.*)?$/;

beforeAll(async () => {
  server = await listenHandler((request, raw, response) => {
    const match = PATH.exec(request.url ?? '');
    const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, unknown>;
    const route = { model: match?.[1], stream: match?.[2] === 'streamGenerateContent' };
    const context: ClientContext = {
      model: route.model ?? '',
      requestId: 'req-1',
      request: body,
      created: 1_700_000_000,
    };
    try {
      if (match?.[2] === 'countTokens') {
        hub = readGeminiCountRequest(body, route.model);
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(geminiCountAnswer(reply.count ?? 0)));
        return;
      }
      hub = geminiClient.toHub(body, route);
    } catch (error) {
      const { status, message, type, code } = error as AppError;
      response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      response.end(JSON.stringify(geminiClient.errorBody({ status, message, type, code })));
      return;
    }
    if (!route.stream) {
      response.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
      response.end(JSON.stringify(geminiClient.fromHub(reply.completion ?? {}, context)));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const writer = geminiClient.streamWriter(context);
    for (const chunk of reply.chunks ?? []) response.write(writer.chunk(chunk));
    response.end(reply.streamError ? writer.error(reply.streamError) : writer.end());
  });
});

afterAll(() => server.close());

beforeEach(() => {
  reply = {};
  hub = undefined;
});

const ai = () => new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: server.url } });

const completion = (message: Record<string, unknown>, finish: string, usage: Record<string, unknown>) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: finish }],
  usage,
});

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-2',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'gpt-4o',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});

const usage = (prompt: number, completion: number, reasoning = 0) => ({
  id: 'chatcmpl-2',
  object: 'chat.completion.chunk',
  choices: [],
  usage: {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    completion_tokens_details: { reasoning_tokens: reasoning },
  },
});

const weather = {
  name: 'get_weather',
  description: 'The weather of a city.',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
};

describe('@google/genai through the Gemini client format', () => {
  it('generateContent: reads the SDK’s request and answers text and usage it reads', async () => {
    reply.completion = completion({ content: 'Hello!' }, 'stop', {
      prompt_tokens: 5,
      completion_tokens: 2,
      total_tokens: 7,
    });
    const response = await ai().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Say hello',
      config: {
        systemInstruction: 'Be brief.',
        temperature: 0.3,
        maxOutputTokens: 64,
        stopSequences: ['\n\n'],
        thinkingConfig: { thinkingBudget: 1024 },
      },
    });
    expect(hub).toEqual({
      model: 'gemini-2.5-flash',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
      temperature: 0.3,
      max_tokens: 64,
      stop: ['\n\n'],
      reasoning_effort: 'low',
    });
    expect(response.text).toBe('Hello!');
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata).toEqual({
      promptTokenCount: 5,
      candidatesTokenCount: 2,
      totalTokenCount: 7,
    });
    expect(response.modelVersion).toBe('gemini-2.5-flash');
    expect(response.responseId).toBe('chatcmpl-1');
  });

  it('function calling: a call the SDK reads, and the round trip it sends back', async () => {
    reply.completion = completion(
      {
        content: null,
        tool_calls: [
          {
            id: 'call_9',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      'tool_calls',
      { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 },
    );
    const config = {
      tools: [{ functionDeclarations: [weather] }],
      toolConfig: {
        functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] },
      },
    };
    const first = await ai().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather in Paris?',
      config,
    });
    expect(first.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris' }, id: 'call_9' }]);
    expect(hub?.['tool_choice']).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(hub?.['tools']).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'The weather of a city.',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ]);

    reply.completion = completion({ content: 'Sunny, 21 °C.' }, 'stop', {
      prompt_tokens: 30,
      completion_tokens: 6,
      total_tokens: 36,
    });
    const call = first.candidates?.[0]?.content;
    const second = await ai().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        call!,
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'call_9', name: 'get_weather', response: { output: 'sunny, 21' } } },
          ],
        },
      ],
      config: { tools: config.tools },
    });
    expect(hub?.['messages']).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_9',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_9', content: '{"output":"sunny, 21"}' },
    ]);
    expect(second.text).toBe('Sunny, 21 °C.');
  });

  it('generateContentStream: text chunks, thoughts when asked, the finish and usage last', async () => {
    reply.chunks = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ reasoning_content: 'Counting…' }),
      chunk({ content: 'One, ' }),
      chunk({ content: 'two.' }),
      chunk({}, 'stop'),
      usage(4, 12, 5),
    ];
    const stream = await ai().models.generateContentStream({
      model: 'gemini-3-pro-preview',
      contents: [{ role: 'user', parts: [{ text: 'Count to two' }] }],
      config: { thinkingConfig: { includeThoughts: true, thinkingLevel: ThinkingLevel.HIGH } },
    });
    const texts: (string | undefined)[] = [];
    const thoughts: string[] = [];
    let last: Awaited<ReturnType<typeof stream.next>>['value'];
    for await (const piece of stream) {
      texts.push(piece.text);
      for (const part of piece.candidates?.[0]?.content?.parts ?? [])
        if (part.thought) thoughts.push(part.text ?? '');
      last = piece;
    }
    expect(hub?.['stream']).toBe(true);
    expect(hub?.['stream_options']).toEqual({ include_usage: true });
    expect(hub?.['reasoning_effort']).toBe('high');
    expect(thoughts).toEqual(['Counting…']);
    expect(texts.filter((text) => text !== undefined).join('')).toBe('One, two.');
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata).toEqual({
      promptTokenCount: 4,
      candidatesTokenCount: 7,
      totalTokenCount: 16,
      thoughtsTokenCount: 5,
    });
    expect(last?.modelVersion).toBe('gemini-3-pro-preview');
  });

  it('generateContentStream: function calls arrive whole in the last chunk', async () => {
    reply.chunks = [
      chunk({
        role: 'assistant',
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city"' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':"Oslo"}' } }] }),
      chunk({}, 'tool_calls'),
      usage(9, 3),
    ];
    const stream = await ai().models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'Weather in Oslo?',
      config: { tools: [{ functionDeclarations: [weather] }] },
    });
    const calls: unknown[] = [];
    for await (const piece of stream) calls.push(...(piece.functionCalls ?? []));
    expect(calls).toEqual([{ name: 'get_weather', args: { city: 'Oslo' }, id: 'call_1' }]);
  });

  it('countTokens: reads the SDK’s contents and answers totalTokens', async () => {
    reply.count = 42;
    const counted = await ai().models.countTokens({
      model: 'gemini-2.5-flash',
      contents: 'How many tokens?',
    });
    expect(counted.totalTokens).toBe(42);
    expect(hub).toEqual({
      model: 'gemini-2.5-flash',
      messages: [{ role: 'user', content: 'How many tokens?' }],
    });
  });

  it('errors: a refused request is an ApiError with the status and the field in its message', async () => {
    const refused = ai().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Search the web',
      config: { tools: [{ googleSearch: {} }] },
    });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    await expect(refused).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/tools\.0\.googleSearch/),
    });
  });

  it('errors: an error mid-stream is thrown by the SDK with its status', async () => {
    reply.chunks = [chunk({ content: 'Hel' })];
    reply.streamError = { message: 'The model is overloaded.', type: 'UNAVAILABLE', code: 'UNAVAILABLE' };
    const stream = await ai().models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Hi' });
    const texts: string[] = [];
    const reading = (async () => {
      for await (const piece of stream) texts.push(piece.text ?? '');
    })();
    await expect(reading).rejects.toMatchObject({ name: 'ApiError', status: 503 });
    expect(texts).toEqual(['Hel']);
  });
});
