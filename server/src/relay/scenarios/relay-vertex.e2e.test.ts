import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionRatio, modelRatio } from '../../services/ratio.js';
import { consumeLogs } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import {
  startVertexDouble,
  throwawayServiceAccount,
  type VertexDouble,
} from '../../test-support/vertex-double.js';

const GEMINI = 'gemini-1.5-pro-001';
const CLAUDE = 'claude-3-5-haiku@20241022';
/** Models each served by a channel of their own (a cold token cache per channel). */
const COLD = 'gemini-2.0-flash-lite-001';
const SHORT_LIVED = 'gemini-2.5-flash-lite';
const FORGED = 'gemini-2.5-flash';

const WEATHER: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The current weather of a city',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

/** one-api's formula on the usage the provider reported, at the model's default ratios (group 1). */
const cost = (model: string, prompt: number, completion: number) =>
  Math.ceil(
    (prompt + completion * completionRatio(model, CHANNEL_TYPE.vertexAi, {})) *
      modelRatio(model, CHANNEL_TYPE.vertexAi, {}).ratio,
  );

const readStream = async (stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) => {
  let text = '';
  let finish: string | null = null;
  const usages: OpenAI.Completions.CompletionUsage[] = [];
  for await (const chunk of stream) {
    if (chunk.usage) usages.push(chunk.usage);
    text += chunk.choices[0]?.delta.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  return { text, finish, usages };
};

describe('relay: Vertex AI channels (service-account token, Gemini and Claude) through the official SDKs', () => {
  let fixture: RelayFixture;
  let vertex: VertexDouble;
  let channelId = 0;
  beforeAll(async () => {
    vertex = await startVertexDouble('us-east5', 'sluice-vertex-test');
    fixture = await startRelayFixture('sqlite');
    const vertexChannel = (name: string, models: string, adc = vertex.account.json) =>
      fixture.channel({
        name,
        type: CHANNEL_TYPE.vertexAi,
        key: `${vertex.region}|${vertex.project}|${adc}`,
        base_url: vertex.url,
        models,
        config: JSON.stringify({
          region: vertex.region,
          vertex_ai_project_id: vertex.project,
          vertex_ai_adc: adc,
        }),
      });
    channelId = await vertexChannel('vertex', `${GEMINI},${CLAUDE}`);
    await vertexChannel('vertex-cold', COLD);
    await vertexChannel('vertex-short', SHORT_LIVED);
    // Signed by a key pair the token endpoint does not know.
    await vertexChannel(
      'vertex-forged',
      FORGED,
      throwawayServiceAccount(`${vertex.url}/token`, vertex.project).json,
    );
  });
  afterAll(async () => {
    await fixture?.close();
    await vertex?.close();
  });

  const billed = async (user: RelayUser) => {
    await fixture.test.sluice.idle();
    return consumeLogs(fixture.test.sluice.database.db, user.userId);
  };
  const expectBilled = async (user: RelayUser, model: string, prompt: number, completion: number) => {
    const logs = await billed(user);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      model_name: model,
      prompt_tokens: prompt,
      completion_tokens: completion,
    });
    expect(logs[0]?.quota).toBe(cost(model, prompt, completion));
  };
  const bearerOf = (index = -1) => vertex.requests.at(index)?.headers.authorization ?? '';

  it('answers a Gemini chat with the token its service account was granted, billed by the formula', async () => {
    const user = await fixture.user();
    vertex.gemini.usage = { promptTokenCount: 11, candidatesTokenCount: 7 };
    const completion = await user.sdk.chat.completions.create({
      model: GEMINI,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello!' },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe(vertex.gemini.reply);
    expect(completion.usage).toEqual({ prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 });
    const sent = vertex.requests.at(-1)!;
    expect(sent.path).toBe(
      `/v1/projects/${vertex.project}/locations/us-east5/publishers/google/models/${GEMINI}:generateContent`,
    );
    expect(bearerOf()).toMatch(/^Bearer ya29\.double-\d+-/);
    expect(sent.json).toMatchObject({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hello!' }] }],
    });
    expect(vertex.grants.at(-1)).toMatchObject({
      kid: vertex.account.privateKeyId,
      claims: { iss: vertex.account.clientEmail, aud: `${vertex.url}/token` },
    });
    await expectBilled(user, GEMINI, 11, 7);
  });

  it('streams Gemini (streamGenerateContent?alt=sse) with the usage chunk asked for', async () => {
    const user = await fixture.user();
    vertex.gemini.usage = { promptTokenCount: 6, candidatesTokenCount: 10 };
    const result = await readStream(
      await user.sdk.chat.completions.create({
        model: GEMINI,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    expect(result.text).toBe(vertex.gemini.reply);
    expect(result.usages).toEqual([
      { prompt_tokens: 6, completion_tokens: 10, total_tokens: 16, cost: expect.any(Number) as number },
    ]);
    expect(vertex.requests.at(-1)?.path).toMatch(
      /models\/gemini-1\.5-pro-001:streamGenerateContent\?alt=sse$/,
    );
    await expectBilled(user, GEMINI, 6, 10);
  });

  it('answers a Claude chat through rawPredict (anthropic_version in the body, no model), tools too', async () => {
    const user = await fixture.user();
    vertex.anthropic.usage = { input_tokens: 21, output_tokens: 9 };
    const completion = await user.sdk.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER],
    });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    const sent = vertex.requests.at(-1)!;
    expect(sent.path).toBe(
      `/v1/projects/${vertex.project}/locations/us-east5/publishers/anthropic/models/${CLAUDE}:rawPredict`,
    );
    expect(sent.json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 4096 });
    expect(sent.json).not.toHaveProperty('model');
    await expectBilled(user, CLAUDE, 21, 9);
  });

  it('streams Claude through streamRawPredict', async () => {
    const user = await fixture.user();
    vertex.anthropic.usage = { input_tokens: 13, output_tokens: 8 };
    const result = await readStream(
      await user.sdk.chat.completions.create({
        model: CLAUDE,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'Hi' }],
      }),
    );
    expect(result.text).toBe(vertex.anthropic.reply);
    expect(result.finish).toBe('stop');
    expect(result.usages).toEqual([
      { prompt_tokens: 13, completion_tokens: 8, total_tokens: 21, cost: expect.any(Number) as number },
    ]);
    expect(vertex.requests.at(-1)?.path).toMatch(/models\/claude-3-5-haiku@20241022:streamRawPredict$/);
    await expectBilled(user, CLAUDE, 13, 8);
  });

  it('passes Vertex’s error on with its status and message, the token nowhere', async () => {
    const user = await fixture.user();
    vertex.failNext(
      429,
      'RESOURCE_EXHAUSTED',
      'Quota exceeded for aiplatform.googleapis.com/generate_content_requests',
    );
    const error = await user.sdk.chat.completions
      .create({ model: GEMINI, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect(JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error)).not.toContain('ya29.');
    expect(await billed(user)).toEqual([]);
  });

  it('fetches one token for 20 concurrent requests on a cold channel', async () => {
    const user = await fixture.user();
    const grants = vertex.grants.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        user.sdk.chat.completions.create({ model: COLD, messages: [{ role: 'user', content: 'Hi' }] }),
      ),
    );
    expect(answers.map((answer) => answer.choices[0]?.message.content)).toEqual(
      Array(20).fill(vertex.gemini.reply),
    );
    expect(vertex.grants.length).toBe(grants + 1);
    expect(new Set(vertex.requests.slice(-20).map((request) => request.headers.authorization)).size).toBe(1);
  });

  it('fetches a new token once the last one is about to expire', async () => {
    const user = await fixture.user();
    const ask = () =>
      user.sdk.chat.completions.create({ model: SHORT_LIVED, messages: [{ role: 'user', content: 'Hi' }] });
    vertex.expiresIn = 61; // the relay refreshes a minute before expiry: this one is good for a second
    try {
      const grants = vertex.grants.length;
      await ask();
      const first = bearerOf();
      await ask();
      expect(bearerOf()).toBe(first);
      expect(vertex.grants.length).toBe(grants + 1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await ask();
      expect(vertex.grants.length).toBe(grants + 2);
      expect(bearerOf()).not.toBe(first);
    } finally {
      vertex.expiresIn = 3599;
    }
  });

  it('answers a refused grant as the channel’s credentials error, nothing of the key file in it', async () => {
    const user = await fixture.user();
    const error = (await user.sdk.chat.completions
      .create({ model: FORGED, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error.message).toContain('Invalid JWT Signature.');
    expect(JSON.stringify(error.error)).not.toMatch(/PRIVATE KEY|iam\.gserviceaccount/);
  });

  it('tests the channel through the same adaptor and token', async () => {
    const answer = await fixture.root.get(
      `/api/channel/test/${channelId}?model=${encodeURIComponent(CLAUDE)}`,
    );
    expect(answer.body).toMatchObject({ success: true });
    expect(vertex.requests.at(-1)?.path).toMatch(
      /publishers\/anthropic\/models\/claude-3-5-haiku@20241022:rawPredict$/,
    );
  });

  describe('clients in their own formats', () => {
    it('passes an Anthropic client (@anthropic-ai/sdk) through to Claude untouched, streamed or not', async () => {
      const user = await fixture.user();
      vertex.anthropic.usage = { input_tokens: 17, output_tokens: 5 };
      const anthropic = new Anthropic({
        apiKey: `sk-${user.key}`,
        baseURL: fixture.server.url,
        maxRetries: 0,
      });
      const message = await anthropic.messages.create({
        model: CLAUDE,
        max_tokens: 300,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect(message.id).toBe('msg_013Zva2CMHLNnXjNJJKqJ2EF');
      expect(message.content).toEqual([{ type: 'text', text: vertex.anthropic.reply }]);
      expect(vertex.requests.at(-1)?.json).toEqual({
        anthropic_version: 'vertex-2023-10-16',
        max_tokens: 300,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hello' }],
      });
      const stream = anthropic.messages.stream({
        model: CLAUDE,
        max_tokens: 300,
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect(await stream.finalText()).toBe(vertex.anthropic.reply);
      expect(vertex.requests.at(-1)?.path).toMatch(/:streamRawPredict$/);
      const logs = await billed(user);
      expect(logs.map((log) => [log.prompt_tokens, log.completion_tokens, log.quota])).toEqual([
        [17, 5, cost(CLAUDE, 17, 5)],
        [17, 5, cost(CLAUDE, 17, 5)],
      ]);
    });

    it('translates an Anthropic client asking for a Gemini model on Vertex', async () => {
      const user = await fixture.user();
      const anthropic = new Anthropic({
        apiKey: `sk-${user.key}`,
        baseURL: fixture.server.url,
        maxRetries: 0,
      });
      const message = await anthropic.messages.create({
        model: GEMINI,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect(message.content).toEqual([{ type: 'text', text: vertex.gemini.reply }]);
      expect(vertex.requests.at(-1)?.path).toMatch(
        /publishers\/google\/models\/gemini-1\.5-pro-001:generateContent$/,
      );
    });

    it('passes a Gemini client (@google/genai) through to Gemini untouched, streamed or not', async () => {
      const user = await fixture.user();
      vertex.gemini.usage = { promptTokenCount: 8, candidatesTokenCount: 10 };
      const genai = new GoogleGenAI({
        apiKey: `sk-${user.key}`,
        httpOptions: { baseUrl: fixture.server.url },
      });
      const answer = await genai.models.generateContent({
        model: GEMINI,
        contents: 'Write a story about a magic backpack.',
        config: { temperature: 0.3 },
      });
      expect(answer.text).toBe(vertex.gemini.reply);
      expect(vertex.requests.at(-1)?.json).toEqual({
        contents: [{ parts: [{ text: 'Write a story about a magic backpack.' }], role: 'user' }],
        generationConfig: { temperature: 0.3 },
      });
      let text = '';
      for await (const chunk of await genai.models.generateContentStream({ model: GEMINI, contents: 'Hi' }))
        text += chunk.text ?? '';
      expect(text).toBe(vertex.gemini.reply);
      expect(vertex.requests.at(-1)?.path).toMatch(/:streamGenerateContent\?alt=sse$/);
      const logs = await billed(user);
      expect(logs.map((log) => log.quota)).toEqual([cost(GEMINI, 8, 10), cost(GEMINI, 8, 10)]);
    });
  });
});
