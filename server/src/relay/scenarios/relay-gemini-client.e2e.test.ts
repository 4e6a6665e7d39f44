import { ApiError, GoogleGenAI, Type, type FunctionDeclaration } from '@google/genai';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { startGeminiDouble, type GeminiDouble } from '../../test-support/gemini-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { consumeLogs, gpt4oCost } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';

const CLAUDE = 'claude-3-5-sonnet-20241022';
const GEMINI = 'gemini-1.5-pro';

const WEATHER: FunctionDeclaration = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  parameters: {
    type: Type.OBJECT,
    properties: { location: { type: Type.STRING, description: 'The city' } },
    required: ['location'],
  },
};

describe('relay: Gemini clients (@google/genai) on every kind of channel', () => {
  let fixture: RelayFixture;
  let anthropic: AnthropicDouble;
  let openai: OpenAiDouble;
  let gemini: GeminiDouble;

  beforeAll(async () => {
    [anthropic, openai, gemini] = await Promise.all([
      startAnthropicDouble(),
      startOpenAiDouble(),
      startGeminiDouble(),
    ]);
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({
      name: 'claude',
      type: CHANNEL_TYPE.anthropic,
      key: anthropic.key,
      base_url: anthropic.url,
      models: CLAUDE,
    });
    await fixture.channel({ name: 'openai', base_url: openai.url, models: 'gpt-4o' });
    await fixture.channel({
      name: 'gemini',
      type: CHANNEL_TYPE.gemini,
      key: gemini.key,
      base_url: gemini.url,
      models: GEMINI,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await Promise.all([anthropic?.close(), openai?.close(), gemini?.close()]);
  });

  const sdkOf = (user: RelayUser | string) =>
    new GoogleGenAI({
      apiKey: typeof user === 'string' ? user : `sk-${user.key}`,
      httpOptions: { baseUrl: fixture.server.url },
    });
  const billed = async (user: RelayUser) => {
    await fixture.test.sluice.idle();
    return consumeLogs(fixture.test.sluice.database.db, user.userId);
  };

  describe('to a Gemini channel: passed through untouched', () => {
    it('answers as the channel answered, the body sent as it came, billed by usageMetadata', async () => {
      const user = await fixture.user();
      gemini.usage = { promptTokenCount: 8, candidatesTokenCount: 10 };
      const answer = await sdkOf(user).models.generateContent({
        model: GEMINI,
        contents: 'Write a story about a magic backpack.',
        config: { temperature: 0.3, safetySettings: [] },
      });
      expect(answer.text).toBe(gemini.reply);
      expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 8, candidatesTokenCount: 10 });
      const sent = gemini.requests.at(-1)!;
      expect(sent.path).toBe(`/v1beta/models/${GEMINI}:generateContent`);
      expect(sent.headers['x-goog-api-key']).toBe(gemini.key);
      const [log] = await billed(user);
      expect(log).toMatchObject({ model_name: GEMINI, prompt_tokens: 8, completion_tokens: 10 });
    });

    it('sends fields Sluice does not know byte for byte, and streams the channel’s events', async () => {
      const user = await fixture.user();
      const body = JSON.stringify({
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        generationConfig: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
        tools: [{ googleSearch: {} }],
        a_field_from_the_future: { nested: [1, 2] },
      });
      const response = await fetch(
        `${fixture.server.url}/v1beta/models/${GEMINI}:streamGenerateContent?alt=sse`,
        {
          method: 'POST',
          headers: { 'x-goog-api-key': `sk-${user.key}`, 'content-type': 'application/json' },
          body,
        },
      );
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('"finishReason":"STOP"');
      expect(gemini.requests.at(-1)?.body.toString('utf8')).toBe(body);
      const [log] = await billed(user);
      expect(log).toMatchObject({ prompt_tokens: 8, completion_tokens: 10 });
      expect(Boolean(log?.is_stream)).toBe(true);
    });
  });

  describe('to an OpenAI channel: translated through the hub', () => {
    it('answers generateContent, billed by the OpenAI usage', async () => {
      const user = await fixture.user();
      const answer = await sdkOf(user).models.generateContent({
        model: 'gpt-4o',
        contents: 'Hello',
        config: { systemInstruction: 'Be brief.', maxOutputTokens: 100 },
      });
      expect(answer.text).toBe(openai.reply);
      expect(answer.usageMetadata).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 12 });
      expect(openai.requests.at(-1)?.json).toMatchObject({
        model: 'gpt-4o',
        max_tokens: 100,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
      });
      const [log] = await billed(user);
      expect(log).toMatchObject({ prompt_tokens: 9, completion_tokens: 12, quota: gpt4oCost(9, 12) });
    });

    it('streams generateContentStream with usageMetadata at the end', async () => {
      const user = await fixture.user();
      let text = '';
      let last;
      for await (const chunk of await sdkOf(user).models.generateContentStream({
        model: 'gpt-4o',
        contents: 'Hello',
      })) {
        text += chunk.text ?? '';
        last = chunk;
      }
      expect(text).toBe(openai.reply);
      expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
      expect(last?.usageMetadata).toMatchObject({ promptTokenCount: 9, candidatesTokenCount: 12 });
      const [log] = await billed(user);
      expect(log).toMatchObject({ prompt_tokens: 9, completion_tokens: 12 });
    });
  });

  describe('to an Anthropic channel: translated both ways', () => {
    it('calls a function and reads its result', async () => {
      const user = await fixture.user();
      const sdk = sdkOf(user);
      const question = { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] };
      const first = await sdk.models.generateContent({
        model: CLAUDE,
        contents: [question],
        config: { tools: [{ functionDeclarations: [WEATHER] }] },
      });
      const call = first.functionCalls?.[0];
      expect(call).toMatchObject({ name: 'get_weather', args: { location: 'Paris', unit: 'c' } });
      expect(anthropic.requests.at(-1)?.json?.['tools']).toMatchObject([{ name: 'get_weather' }]);
      const second = await sdk.models.generateContent({
        model: CLAUDE,
        contents: [
          question,
          { role: 'model', parts: [{ functionCall: call }] },
          {
            role: 'user',
            parts: [{ functionResponse: { name: 'get_weather', response: { output: '15 degrees' } } }],
          },
        ],
        config: { tools: [{ functionDeclarations: [WEATHER] }] },
      });
      expect(second.text).toContain('The tool said');
      expect((await billed(user)).map((log) => log.model_name)).toEqual([CLAUDE, CLAUDE]);
    });
  });

  describe('the model list', () => {
    it('lists the key’s models in Gemini’s shape, and one of them', async () => {
      const user = await fixture.user({ token: { models: `${GEMINI},gpt-4o` } });
      const names: string[] = [];
      for await (const model of await sdkOf(user).models.list()) names.push(model.name ?? '');
      expect(names).toEqual([`models/${GEMINI}`, 'models/gpt-4o']);
      const one = await sdkOf(user).models.get({ model: GEMINI });
      expect(
        one.supportedActions ?? (one as { supportedGenerationMethods?: string[] }).supportedGenerationMethods,
      ).toContain('generateContent');
      const missing = await fetch(`${fixture.server.url}/v1beta/models/nothing-here?key=sk-${user.key}`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    });
  });

  describe('errors and counting', () => {
    it('refuses a wrong key with Google’s error shape', async () => {
      const error = await sdkOf('sk-wrong')
        .models.generateContent({ model: GEMINI, contents: 'x' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(401);
      expect((error as ApiError).message).toContain('UNAUTHENTICATED');
    });

    it('accepts the key as ?key= too', async () => {
      const user = await fixture.user();
      const response = await fetch(
        `${fixture.server.url}/v1beta/models/${GEMINI}:generateContent?key=sk-${user.key}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ contents: [{ parts: [{ text: 'Hi' }] }] }),
        },
      );
      expect(response.status).toBe(200);
    });

    it('refuses a feature a translated channel cannot run, naming it, and bills nothing', async () => {
      const user = await fixture.user();
      const error = await sdkOf(user)
        .models.generateContent({ model: 'gpt-4o', contents: 'x', config: { tools: [{ googleSearch: {} }] } })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).message).toContain('googleSearch');
      expect(await billed(user)).toEqual([]);
    });

    it('counts tokens without relaying or billing', async () => {
      const user = await fixture.user();
      const before = gemini.requests.length;
      const counted = await sdkOf(user).models.countTokens({
        model: GEMINI,
        contents: 'The quick brown fox jumps over the lazy dog.',
      });
      expect(counted.totalTokens).toBeGreaterThan(5);
      expect(gemini.requests.length).toBe(before);
      expect(await billed(user)).toEqual([]);
    });
  });
});
