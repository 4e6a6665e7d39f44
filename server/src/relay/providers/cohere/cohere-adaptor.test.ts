import { readFileSync } from 'node:fs';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it, vi } from 'vitest';
import {
  contentOf,
  dataOf,
  insideCharacters,
  piecesOf,
  relayPieces,
} from '../../../test-support/adaptor-conformance-support.js';
import { fixtureMeta } from '../../../test-support/stream-replay.js';
import type { RelayRequestMeta } from '../adaptor.js';
import { cohereAdaptor } from './cohere-adaptor.js';

const meta = (overrides: Partial<Omit<RelayRequestMeta, 'channel'>> = {}) =>
  fixtureMeta(
    { type: CHANNEL_TYPE.cohere, baseUrl: 'https://api.cohere.com', key: 'co-channel-key' },
    { model: 'command-a-03-2025', ...overrides },
  );

const build = (body: Record<string, unknown>, overrides: Partial<Omit<RelayRequestMeta, 'channel'>> = {}) => {
  const request = cohereAdaptor.buildRequest(body, meta(overrides));
  return { ...request, json: JSON.parse(String(request.body)) as Record<string, unknown> };
};

const recorded = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as unknown;

const WEATHER = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'gets the weather of a given location',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

describe('cohere adaptor: v2 chat requests', () => {
  it('pins the documented request: POST /v2/chat, Bearer key, messages', () => {
    const request = build({ model: 'x', messages: [{ role: 'user', content: 'Hello world!' }] });
    expect(request.url).toBe('https://api.cohere.com/v2/chat');
    expect(request.headers).toEqual({
      authorization: 'Bearer co-channel-key',
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(request.json).toEqual({
      model: 'command-a-03-2025',
      messages: [{ role: 'user', content: 'Hello world!' }],
    });
  });

  it('converts a tool conversation, the sampling parameters and a stream', () => {
    const request = build(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: "What's the weather in Toronto?" },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"location":"Toronto"}' },
              },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temperature": {"toronto": "20C"}}' },
        ],
        tools: [WEATHER],
        tool_choice: 'required',
        temperature: 0.3,
        top_p: 0.75,
        top_k: 5,
        max_tokens: 200,
        seed: 42,
        stop: ['END'],
        frequency_penalty: 0.1,
        presence_penalty: 0.2,
        stream: true,
      },
      { stream: true },
    );
    expect(request.headers['accept']).toBe('text/event-stream');
    expect(request.json).toEqual({
      model: 'command-a-03-2025',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: "What's the weather in Toronto?" },
        {
          role: 'assistant',
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Toronto"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature": {"toronto": "20C"}}' },
      ],
      tools: [WEATHER],
      tool_choice: 'REQUIRED',
      max_tokens: 200,
      temperature: 0.3,
      p: 0.75,
      k: 5,
      seed: 42,
      frequency_penalty: 0.1,
      presence_penalty: 0.2,
      stop_sequences: ['END'],
      stream: true,
    });
  });

  it('keeps images as image_url parts and maps json response formats', () => {
    const request = build({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
      response_format: { type: 'json_object' },
    });
    expect(request.json['messages']).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
    ]);
    expect(request.json['response_format']).toEqual({ type: 'json_object' });
  });
});

describe('cohere adaptor: v2 answers', () => {
  it('translates the documented answer, usage from the billed units', () => {
    const parsed = cohereAdaptor.parseResponse(recorded('./cohere-response.recorded.json'), meta());
    expect(parsed.body).toMatchObject({
      id: 'chatcmpl-c14c80c3-18eb-4519-9460-6c92edd8cfb4',
      object: 'chat.completion',
      model: 'command-a-03-2025',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content:
              'LLMs stand for Large Language Models, which are a type of neural network model specialized in processing and generating human language.',
          },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 17, completion_tokens: 33, total_tokens: 50 },
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 17, completion_tokens: 33, total_tokens: 50 });
  });

  it('translates a tool call answer', () => {
    const parsed = cohereAdaptor.parseResponse(
      {
        id: '4ed3b5e7-1a0b-4c1e-a7b0-2f7c5c1e0d9a',
        finish_reason: 'TOOL_CALL',
        message: {
          role: 'assistant',
          tool_plan: 'I will look up the weather in Toronto.',
          tool_calls: [
            {
              id: 'get_weather_1byjy32y4hvq',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"location":"Toronto"}' },
            },
          ],
        },
        usage: {
          billed_units: { input_tokens: 37, output_tokens: 28 },
          tokens: { input_tokens: 1000, output_tokens: 28 },
        },
      },
      meta(),
    );
    expect(parsed.body).toMatchObject({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              {
                id: 'get_weather_1byjy32y4hvq',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"location":"Toronto"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
    expect(parsed.usage?.total_tokens).toBe(65);
  });

  it('reads its errors: {message}', () => {
    expect(cohereAdaptor.parseError({ id: 'x', message: 'invalid api token' })).toEqual({
      message: 'invalid api token',
      type: 'upstream_error',
      code: '',
    });
  });
});

describe('cohere adaptor: a -internet model (v1 chat with the web-search connector)', () => {
  const internet = { model: 'command-r-internet' };

  it('sends the last user message as message, the rest as chat_history, and the connector', () => {
    const request = build(
      {
        messages: [
          { role: 'system', content: 'Answer in French.' },
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Bonjour !' },
          { role: 'user', content: 'Weather in Paris?' },
        ],
        temperature: 0.5,
      },
      internet,
    );
    expect(request.url).toBe('https://api.cohere.com/v1/chat');
    expect(request.json).toEqual({
      model: 'command-r',
      message: 'Weather in Paris?',
      chat_history: [
        { role: 'SYSTEM', message: 'Answer in French.' },
        { role: 'USER', message: 'Hi' },
        { role: 'CHATBOT', message: 'Bonjour !' },
      ],
      connectors: [{ id: 'web-search' }],
      temperature: 0.5,
    });
  });

  it('translates a v1 answer with its billed units', () => {
    const parsed = cohereAdaptor.parseResponse(
      {
        response_id: 'a1b2',
        text: 'Il fait beau.',
        generation_id: 'g1',
        finish_reason: 'COMPLETE',
        meta: { billed_units: { input_tokens: 900, output_tokens: 5 } },
      },
      meta(internet),
    );
    expect(parsed.body).toMatchObject({
      id: 'chatcmpl-a1b2',
      choices: [{ message: { content: 'Il fait beau.' } }],
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 900, completion_tokens: 5, total_tokens: 905 });
  });

  it('relays its JSON-lines stream alike however it is cut', async () => {
    // Chunks carry `created`: one clock for every cut.
    vi.spyOn(Date, 'now').mockReturnValue(1_750_000_000_000);
    const bytes = readFileSync(new URL('./cohere-v1-stream.recorded.jsonl', import.meta.url));
    const streamMeta = meta({ ...internet, stream: true });
    const whole = await relayPieces(cohereAdaptor, streamMeta, [bytes], true);
    expect(contentOf(dataOf(whole.out))).toBe('À Paris, il fait 18 °C ☀️.');
    expect(whole.outcomes).toEqual([
      {
        usage: { prompt_tokens: 1204, completion_tokens: 11, total_tokens: 1215 },
        text: 'À Paris, il fait 18 °C ☀️.',
        aborted: false,
      },
    ]);
    const cuts = [...insideCharacters(bytes), ...[1, 2, 3, 7, 64].map((size) => -size)];
    for (const cut of cuts) {
      const pieces = cut < 0 ? piecesOf(bytes, -cut) : [bytes.subarray(0, cut), bytes.subarray(cut)];
      expect(await relayPieces(cohereAdaptor, streamMeta, pieces, true), String(cut)).toEqual(whole);
    }
    vi.restoreAllMocks();
  });
});

describe('cohere adaptor: embeddings', () => {
  const embeddings = { mode: 'embeddings' as const, path: '/v1/embeddings', model: 'embed-english-v3.0' };

  it('pins the documented embed request', () => {
    const request = build({ input: ['hello', 'goodbye'] }, embeddings);
    expect(request.url).toBe('https://api.cohere.com/v2/embed');
    expect(request.json).toEqual({
      model: 'embed-english-v3.0',
      texts: ['hello', 'goodbye'],
      input_type: 'search_document',
      embedding_types: ['float'],
    });
  });

  it('answers OpenAI’s list, usage from the billed input tokens', () => {
    const parsed = cohereAdaptor.parseResponse(
      {
        id: 'da6e531f-83b4-4c05-9ac5-40e2b8a3a2c1',
        embeddings: {
          float: [
            [0.016296387, -0.008354187],
            [-0.04684448, -0.0022702217],
          ],
        },
        texts: ['hello', 'goodbye'],
        meta: { api_version: { version: '2' }, billed_units: { input_tokens: 2 } },
      },
      meta({ ...embeddings, body: { input: ['hello', 'goodbye'] } }),
    );
    expect(parsed.body).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.016296387, -0.008354187] },
        { object: 'embedding', index: 1, embedding: [-0.04684448, -0.0022702217] },
      ],
      model: 'embed-english-v3.0',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 2, completion_tokens: 0, total_tokens: 2 });
  });
});
