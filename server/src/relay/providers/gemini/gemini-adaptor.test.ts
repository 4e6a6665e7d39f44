import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta, piecesOf, replayStream } from '../../../test-support/stream-replay.js';
import type { RelayRequestMeta } from '../adaptor.js';
import { geminiAdaptor } from './gemini-adaptor.js';

const meta = (
  overrides: Partial<Omit<RelayRequestMeta, 'channel'>> = {},
  config: Record<string, string> = {},
) =>
  fixtureMeta(
    {
      type: CHANNEL_TYPE.gemini,
      baseUrl: 'https://generativelanguage.googleapis.com',
      key: 'AIza-channel-key',
      config,
    },
    { model: 'gemini-1.5-pro', ...overrides },
  );

const bodyOf = (body: Record<string, unknown>) =>
  JSON.parse(String(geminiAdaptor.buildRequest(body, meta()).body)) as Record<string, unknown>;

const SAFETY = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_CIVIC_INTEGRITY',
].map((category) => ({ category, threshold: 'BLOCK_NONE' }));

describe('gemini adaptor: requests', () => {
  it('pins the documented text request: URL, header and body', () => {
    const request = geminiAdaptor.buildRequest(
      { model: 'gemini', messages: [{ role: 'user', content: 'Explain how AI works' }] },
      meta(),
    );
    expect(request.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-pro:generateContent',
    );
    expect(request.headers).toEqual({
      'x-goog-api-key': 'AIza-channel-key',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(request.body))).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'Explain how AI works' }] }],
      safetySettings: SAFETY,
    });
  });

  it('streams with alt=sse and takes the version from the channel config', () => {
    const request = geminiAdaptor.buildRequest(
      { messages: [{ role: 'user', content: 'x' }], stream: true },
      meta({ stream: true }, { api_version: 'v1' }),
    );
    expect(request.url).toBe(
      'https://generativelanguage.googleapis.com/v1/models/gemini-1.5-pro:streamGenerateContent?alt=sse',
    );
    expect(request.headers['accept']).toBe('text/event-stream');
  });

  it('keeps v1beta for the models only v1beta serves whatever GEMINI_VERSION says, as one-api', () => {
    const urlFor = (model: string, version: string) =>
      geminiAdaptor.buildRequest(
        { messages: [{ role: 'user', content: 'x' }] },
        { ...meta(), model, settings: { geminiVersion: version, geminiSafety: 'BLOCK_NONE' } },
      ).url;
    expect(urlFor('gemini-1.5-pro', 'v1')).toContain('/v1beta/models/gemini-1.5-pro:');
    expect(urlFor('gemini-2.5-flash', 'v1')).toContain('/v1beta/models/gemini-2.5-flash:');
    expect(urlFor('gemini-pro', 'v1')).toContain('/v1/models/gemini-pro:');
    expect(urlFor('gemini-pro', '')).toContain('/v1beta/models/gemini-pro:');
  });

  it('converts a whole conversation: system, images, function calls and responses, config', () => {
    const body = bodyOf({
      messages: [
        { role: 'system', content: 'You are a cat.' },
        { role: 'system', content: 'Your name is Neko.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Tell me about this instrument' },
            { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRg==' } },
            { type: 'image_url', image_url: 'https://example.com/a/b.png?size=2' },
          ],
        },
        { role: 'assistant', content: 'A violin.' },
        { role: 'user', content: 'Which theaters in Mountain View show Barbie?' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: {
                name: 'find_theaters',
                arguments: '{"location":"Mountain View, CA","movie":"Barbie"}',
              },
            },
            { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"theaters":[{"name":"AMC"}]}' },
        { role: 'tool', tool_call_id: 'call_2', content: '10:00' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'find_theaters',
            description: 'find theaters based on location and optionally movie title',
            parameters: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              type: 'object',
              additionalProperties: false,
              properties: {
                location: { type: 'string' },
                additionalProperties: { type: 'object', additionalProperties: false },
              },
              required: ['location'],
            },
          },
        },
        { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
      ],
      tool_choice: { type: 'function', function: { name: 'find_theaters' } },
      temperature: 0.7,
      top_p: 0.95,
      top_k: 20,
      max_tokens: 800,
      stop: ['Title'],
      n: 2,
      seed: 7,
      response_format: { type: 'json_object' },
    });
    expect(body).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Tell me about this instrument' },
            { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQSkZJRg==' } },
            { fileData: { mimeType: 'image/png', fileUri: 'https://example.com/a/b.png?size=2' } },
          ],
        },
        { role: 'model', parts: [{ text: 'A violin.' }] },
        { role: 'user', parts: [{ text: 'Which theaters in Mountain View show Barbie?' }] },
        {
          role: 'model',
          parts: [
            {
              functionCall: {
                name: 'find_theaters',
                args: { location: 'Mountain View, CA', movie: 'Barbie' },
              },
            },
            { functionCall: { name: 'get_time', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { name: 'find_theaters', response: { theaters: [{ name: 'AMC' }] } } },
            { functionResponse: { name: 'get_time', response: { content: '10:00' } } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'You are a cat.\nYour name is Neko.' }] },
      safetySettings: SAFETY,
      generationConfig: {
        temperature: 0.7,
        topP: 0.95,
        topK: 20,
        maxOutputTokens: 800,
        stopSequences: ['Title'],
        candidateCount: 2,
        seed: 7,
        responseMimeType: 'application/json',
      },
      tools: [
        {
          functionDeclarations: [
            {
              name: 'find_theaters',
              description: 'find theaters based on location and optionally movie title',
              parameters: {
                type: 'object',
                properties: { location: { type: 'string' }, additionalProperties: { type: 'object' } },
                required: ['location'],
              },
            },
            { name: 'get_time' },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['find_theaters'] } },
    });
  });

  it('puts the system text in a leading user turn for models without systemInstruction', () => {
    const messages = [
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'Hi' },
    ];
    for (const model of ['gemma-2-9b-it', 'gemini-pro', 'gemini-1.0-pro'])
      expect(
        JSON.parse(String(geminiAdaptor.buildRequest({ messages }, meta({ model })).body)),
      ).toMatchObject({
        contents: [
          { role: 'user', parts: [{ text: 'Be kind.' }] },
          { role: 'model', parts: [{ text: 'Okay' }] },
          { role: 'user', parts: [{ text: 'Hi' }] },
        ],
      });
    expect(
      JSON.parse(String(geminiAdaptor.buildRequest({ messages }, meta({ model: 'gemini-2.0-flash' })).body)),
    ).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      systemInstruction: { parts: [{ text: 'Be kind.' }] },
    });
  });

  it('maps tool_choice strings and json_schema response formats', () => {
    const tools = [{ type: 'function', function: { name: 'f' } }];
    const config = (tool_choice: unknown) =>
      bodyOf({ messages: [{ role: 'user', content: 'x' }], tools, tool_choice })['toolConfig'];
    expect(config('auto')).toBeUndefined();
    expect(config('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(config('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    const schema = bodyOf({
      messages: [{ role: 'user', content: 'x' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'r',
          schema: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
        },
      },
    })['generationConfig'];
    expect(schema).toEqual({
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { a: { type: 'string' } } },
    });
  });
});

describe('gemini adaptor: responses', () => {
  it('translates the documented text response', () => {
    const parsed = geminiAdaptor.parseResponse(
      {
        candidates: [
          {
            content: { parts: [{ text: 'AI learns ' }, { text: 'patterns from data.' }], role: 'model' },
            finishReason: 'STOP',
            avgLogprobs: -0.2,
          },
        ],
        usageMetadata: { promptTokenCount: 4, candidatesTokenCount: 405, totalTokenCount: 409 },
        modelVersion: 'gemini-1.5-pro-002',
        responseId: 'mAitZ9bzMe2_z7IP2oe5gQU',
      },
      meta(),
    );
    expect(parsed.body).toEqual({
      id: 'chatcmpl-mAitZ9bzMe2_z7IP2oe5gQU',
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'gemini-1.5-pro',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'AI learns patterns from data.' },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 4, completion_tokens: 405, total_tokens: 409 },
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 4, completion_tokens: 405, total_tokens: 409 });
  });

  it('translates the documented function call response, with thoughts billed as completion', () => {
    const parsed = geminiAdaptor.parseResponse(
      {
        candidates: [
          {
            content: {
              parts: [
                { text: 'thinking about theaters', thought: true },
                {
                  functionCall: {
                    name: 'find_theaters',
                    args: { location: 'Mountain View, CA', movie: 'Barbie' },
                  },
                },
              ],
              role: 'model',
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: 50,
          candidatesTokenCount: 20,
          thoughtsTokenCount: 30,
          totalTokenCount: 100,
        },
      },
      meta(),
    );
    const body = parsed.body as {
      id: string;
      choices: { message: { content: unknown; tool_calls: { id: string }[] }; finish_reason: string }[];
    };
    expect(body.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(body.choices[0]).toMatchObject({
      message: {
        content: null,
        tool_calls: [
          {
            type: 'function',
            function: {
              name: 'find_theaters',
              arguments: '{"location":"Mountain View, CA","movie":"Barbie"}',
            },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
    expect(body.choices[0]?.message.tool_calls[0]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(parsed.usage).toEqual({ prompt_tokens: 50, completion_tokens: 50, total_tokens: 100 });
  });

  it('maps finish reasons and blocked prompts; no usageMetadata leaves counting to the pipeline', () => {
    const finish = (finishReason: string) =>
      (
        geminiAdaptor.parseResponse(
          { candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason }] },
          meta(),
        ).body as { choices: { finish_reason: string }[] }
      ).choices[0]?.finish_reason;
    expect(finish('STOP')).toBe('stop');
    expect(finish('MAX_TOKENS')).toBe('length');
    expect(finish('SAFETY')).toBe('content_filter');
    expect(finish('RECITATION')).toBe('content_filter');
    const blocked = geminiAdaptor.parseResponse(
      {
        promptFeedback: { blockReason: 'SAFETY' },
        usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
      },
      meta(),
    );
    expect(blocked.body).toMatchObject({
      choices: [{ index: 0, message: { content: '' }, finish_reason: 'content_filter' }],
    });
    const noUsage = geminiAdaptor.parseResponse(
      { candidates: [{ content: { parts: [{ text: 'hi' }] } }] },
      meta(),
    );
    expect(noUsage.usage).toBeUndefined();
    expect(noUsage.text).toBe('hi');
  });

  it('reads Gemini error bodies (also wrapped in an array)', () => {
    const error = {
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
      },
    };
    const info = {
      message: 'API key not valid. Please pass a valid API key.',
      type: 'INVALID_ARGUMENT',
      code: 'INVALID_ARGUMENT',
    };
    expect(geminiAdaptor.parseError(error)).toEqual(info);
    expect(geminiAdaptor.parseError([error])).toEqual(info);
    expect(geminiAdaptor.parseError({ error: { code: 503, message: 'overloaded' } })).toEqual({
      message: 'overloaded',
      type: 'upstream_error',
      code: '503',
    });
    expect(geminiAdaptor.parseError(null)).toBeUndefined();
  });
});

/** A documented alt=sse stream: CRLF line ends, usage in every event, finishReason at the end. */
const TEXT_STREAM = [
  'data: {"candidates": [{"content": {"parts": [{"text": "The"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 10,"totalTokenCount": 10},"modelVersion": "gemini-1.5-pro","responseId": "resp-1"}',
  'data: {"candidates": [{"content": {"parts": [{"text": " quick brown fox"}],"role": "model"}}],"usageMetadata": {"promptTokenCount": 10,"totalTokenCount": 10},"modelVersion": "gemini-1.5-pro","responseId": "resp-1"}',
  'data: {"candidates": [{"content": {"parts": [{"text": " jumps.\\n"}],"role": "model"},"finishReason": "STOP"}],"usageMetadata": {"promptTokenCount": 10,"candidatesTokenCount": 6,"totalTokenCount": 16},"modelVersion": "gemini-1.5-pro","responseId": "resp-1"}',
  '',
]
  .map((line) => (line ? `${line}\r\n\r\n` : ''))
  .join('');

const FUNCTION_STREAM =
  'data: {"candidates": [{"content": {"parts": [{"functionCall": {"name": "find_theaters","args": {"location": "Mountain View, CA"}}}],"role": "model"},"finishReason": "STOP","index": 0}],"usageMetadata": {"promptTokenCount": 80,"candidatesTokenCount": 12,"totalTokenCount": 92}}\r\n\r\n';

const choicesOf = (chunks: unknown[]) =>
  chunks.map((chunk) => (chunk as { choices: { delta: unknown; finish_reason: unknown }[] }).choices[0]);

describe('gemini adaptor: streams', () => {
  for (const size of [1, 9, 100, TEXT_STREAM.length]) {
    it(`relays the documented text stream fed ${size} characters at a time`, () => {
      const replay = replayStream(geminiAdaptor, meta({ stream: true }), piecesOf(TEXT_STREAM, size));
      expect(choicesOf(replay.chunks)).toEqual([
        { index: 0, delta: { role: 'assistant', content: 'The' }, logprobs: null, finish_reason: null },
        { index: 0, delta: { content: ' quick brown fox' }, logprobs: null, finish_reason: null },
        { index: 0, delta: { content: ' jumps.\n' }, logprobs: null, finish_reason: 'stop' },
      ]);
      expect(replay.chunks[0]).toMatchObject({
        id: 'chatcmpl-resp-1',
        object: 'chat.completion.chunk',
        model: 'gemini-1.5-pro',
      });
      expect(replay.usage).toEqual({ prompt_tokens: 10, completion_tokens: 6, total_tokens: 16 });
      expect(replay.text).toBe('The quick brown fox jumps.\n');
    });
  }

  it('relays a function call as one tool call delta with finish_reason tool_calls', () => {
    const replay = replayStream(geminiAdaptor, meta({ stream: true }), piecesOf(FUNCTION_STREAM, 13));
    const [choice] = choicesOf(replay.chunks);
    expect(choice).toMatchObject({
      delta: {
        role: 'assistant',
        content: '',
        tool_calls: [
          {
            index: 0,
            type: 'function',
            function: { name: 'find_theaters', arguments: '{"location":"Mountain View, CA"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
    expect(replay.usage).toEqual({ prompt_tokens: 80, completion_tokens: 12, total_tokens: 92 });
  });

  it('ends on an error event with that error', () => {
    const transcript = `${TEXT_STREAM.split('\r\n\r\n')[0]}\r\n\r\ndata: {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}\r\n\r\n`;
    const replay = replayStream(geminiAdaptor, meta({ stream: true }), piecesOf(transcript, 17));
    expect(replay.chunks).toHaveLength(1);
    expect(replay.steps.at(-1)).toMatchObject({
      chunks: [],
      done: true,
      error: { message: 'The model is overloaded.' },
    });
    expect(replay.usage).toEqual({ prompt_tokens: 10, completion_tokens: 0, total_tokens: 10 });
  });
});

describe('gemini adaptor: embeddings', () => {
  const embeddingsMeta = (model = 'text-embedding-004', body: Record<string, unknown> = {}) =>
    meta({ mode: 'embeddings', path: '/v1/embeddings', model, body });

  it('pins the batchEmbedContents request', () => {
    const request = geminiAdaptor.buildRequest(
      {
        model: 'text-embedding-004',
        input: ['What is the meaning of life?', 'How much wood?'],
        dimensions: 256,
      },
      embeddingsMeta(),
    );
    expect(request.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/text-embedding-004:batchEmbedContents',
    );
    expect(request.headers).toEqual({
      'x-goog-api-key': 'AIza-channel-key',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(request.body))).toEqual({
      requests: [
        {
          model: 'models/text-embedding-004',
          content: { parts: [{ text: 'What is the meaning of life?' }] },
          outputDimensionality: 256,
        },
        {
          model: 'models/text-embedding-004',
          content: { parts: [{ text: 'How much wood?' }] },
          outputDimensionality: 256,
        },
      ],
    });
  });

  it('answers OpenAI’s list, with an estimated usage of one token per four characters', () => {
    const body = { input: 'What is the meaning of life?' };
    const current = embeddingsMeta('text-embedding-004', body);
    geminiAdaptor.buildRequest(body, current);
    const parsed = geminiAdaptor.parseResponse(
      { embeddings: [{ values: [0.013168523, -0.008711934] }] },
      current,
    );
    expect(parsed.body).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.013168523, -0.008711934] }],
      model: 'text-embedding-004',
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 7, completion_tokens: 0, total_tokens: 7 });
  });

  it('encodes vectors as base64 float32 when the client asks (the openai SDK’s default)', () => {
    const body = { input: ['a', 'b'], encoding_format: 'base64' };
    const current = embeddingsMeta('text-embedding-004', body);
    geminiAdaptor.buildRequest(body, current);
    const parsed = geminiAdaptor.parseResponse(
      { embeddings: [{ values: [0.5, -2] }, { values: [1] }] },
      current,
    );
    const data = (parsed.body as { data: { embedding: string }[] }).data;
    const decode = (text: string) =>
      Array.from(new Float32Array(new Uint8Array(Buffer.from(text, 'base64')).buffer));
    expect(data.map((item) => decode(item.embedding))).toEqual([[0.5, -2], [1]]);
  });

  it('refuses token-array input with a 400', () => {
    expect(() => geminiAdaptor.buildRequest({ input: [[1, 2, 3]] }, embeddingsMeta())).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});
