import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { ClientFormat } from '@sluice/contract/schemas/log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { startGeminiDouble, type GeminiDouble } from '../../test-support/gemini-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { consumeLogs } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';

const CLAUDE = 'claude-3-5-sonnet-20241022';
const GPT = 'gpt-4o';
const GEMINI = 'gemini-1.5-pro';
/** An OpenAI-compatible model no cache price is published for here: its cache reads cost 1. */
const UNLISTED = 'deepseek-chat';

type Channel = 'anthropic' | 'openai' | 'gemini' | 'unlisted';

/**
 * What each channel's upstream reports, in its documented fields, and what the log must say: every
 * input token in prompt_tokens, and the quota of the formula
 * ceil((uncached + read × CacheReadRatio + write × CacheWriteRatio + completion × CompletionRatio)
 *   × ModelRatio × GroupRatio), with the default ratios of the model.
 */
const EXPECTED: Readonly<
  Record<
    Channel,
    { model: string; prompt: number; completion: number; read: number; write: number; quota: number }
  >
> = {
  // Anthropic: input 50, cache reads 2000, cache writes 400, output 100; claude-3-5-sonnet: ratio 1.5,
  // completion 5, reads 0.1, writes 1.25: (50 + 200 + 500 + 500) × 1.5.
  anthropic: { model: CLAUDE, prompt: 2450, completion: 100, read: 2000, write: 400, quota: 1875 },
  // OpenAI: prompt 3000 of which 2048 cached, completion 100; gpt-4o: ratio 2.5, completion 4, reads
  // 0.5: (952 + 1024 + 400) × 2.5.
  openai: { model: GPT, prompt: 3000, completion: 100, read: 2048, write: 0, quota: 5940 },
  // Gemini: prompt 4000 of which 3200 cached, candidates 60 and thoughts 40 (completion 100);
  // gemini-1.5-pro: ratio 0.625, completion 3, reads 0.25: (800 + 800 + 300) × 0.625 = 1187.5.
  gemini: { model: GEMINI, prompt: 4000, completion: 100, read: 3200, write: 0, quota: 1188 },
  // deepseek-chat (ratio 0.07, completion 2), cache reads unlisted: today's (1000 + 200) × 0.07.
  unlisted: { model: UNLISTED, prompt: 1000, completion: 100, read: 600, write: 0, quota: 84 },
};

describe('relay: cache tokens billed at their own price, for every client format and channel kind', () => {
  let fixture: RelayFixture;
  let anthropic: AnthropicDouble;
  let openai: OpenAiDouble;
  let compatible: OpenAiDouble;
  let gemini: GeminiDouble;

  beforeAll(async () => {
    [anthropic, openai, compatible, gemini] = await Promise.all([
      startAnthropicDouble(),
      startOpenAiDouble(),
      startOpenAiDouble(),
      startGeminiDouble(),
    ]);
    anthropic.usage = {
      input_tokens: 50,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 400,
      output_tokens: 100,
    };
    openai.usage = { prompt_tokens: 3000, completion_tokens: 100, cached_tokens: 2048 };
    compatible.usage = { prompt_tokens: 1000, completion_tokens: 100, cached_tokens: 600 };
    gemini.usage = {
      promptTokenCount: 4000,
      cachedContentTokenCount: 3200,
      candidatesTokenCount: 60,
      thoughtsTokenCount: 40,
    };
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({
      name: 'claude',
      type: CHANNEL_TYPE.anthropic,
      key: anthropic.key,
      base_url: anthropic.url,
      models: CLAUDE,
    });
    await fixture.channel({ name: 'openai', base_url: openai.url, models: GPT });
    await fixture.channel({
      name: 'compatible',
      type: CHANNEL_TYPE.deepSeek,
      base_url: compatible.url,
      models: UNLISTED,
    });
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
    await Promise.all([anthropic?.close(), openai?.close(), compatible?.close(), gemini?.close()]);
  });

  const anthropicSdk = (user: RelayUser) =>
    new Anthropic({ apiKey: `sk-${user.key}`, baseURL: fixture.server.url, maxRetries: 0 });
  const geminiSdk = (user: RelayUser) =>
    new GoogleGenAI({ apiKey: `sk-${user.key}`, httpOptions: { baseUrl: fixture.server.url } });

  /** One request in a client format; answers the cache reads the client was told of. */
  type Call = (user: RelayUser, model: string, stream: boolean) => Promise<number | undefined>;

  const CALLS: Readonly<Record<ClientFormat, Call>> = {
    openai: async (user, model, stream) => {
      const messages = [{ role: 'user' as const, content: 'Hello' }];
      if (!stream) {
        const answer = await user.sdk.chat.completions.create({ model, messages });
        return answer.usage?.prompt_tokens_details?.cached_tokens;
      }
      let cached: number | undefined;
      const chunks = await user.sdk.chat.completions.create({
        model,
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const chunk of chunks) cached = chunk.usage?.prompt_tokens_details?.cached_tokens ?? cached;
      return cached;
    },
    anthropic: async (user, model, stream) => {
      const request = { model, max_tokens: 256, messages: [{ role: 'user' as const, content: 'Hello' }] };
      const message = stream
        ? await anthropicSdk(user).messages.stream(request).finalMessage()
        : await anthropicSdk(user).messages.create(request);
      return message.usage.cache_read_input_tokens ?? undefined;
    },
    responses: async (user, model, stream) => {
      const response = stream
        ? await user.sdk.responses.stream({ model, input: 'Hello' }).finalResponse()
        : await user.sdk.responses.create({ model, input: 'Hello' });
      return response.usage?.input_tokens_details.cached_tokens;
    },
    gemini: async (user, model, stream) => {
      if (!stream) {
        const answer = await geminiSdk(user).models.generateContent({ model, contents: 'Hello' });
        return answer.usageMetadata?.cachedContentTokenCount;
      }
      let cached: number | undefined;
      for await (const chunk of await geminiSdk(user).models.generateContentStream({
        model,
        contents: 'Hello',
      }))
        cached = chunk.usageMetadata?.cachedContentTokenCount ?? cached;
      return cached;
    },
  };

  const CASES: readonly [ClientFormat, Channel][] = [
    ['openai', 'openai'],
    ['openai', 'anthropic'],
    ['openai', 'gemini'],
    ['openai', 'unlisted'],
    ['anthropic', 'anthropic'],
    ['anthropic', 'openai'],
    ['anthropic', 'gemini'],
    ['responses', 'openai'],
    ['responses', 'anthropic'],
    ['responses', 'gemini'],
    ['responses', 'unlisted'],
    ['gemini', 'gemini'],
    ['gemini', 'openai'],
    ['gemini', 'anthropic'],
  ];

  describe.each([false, true])('streamed: %s', (stream) => {
    it.each(CASES)('a %s client on a %s channel', async (format, channel) => {
      const expected = EXPECTED[channel];
      const user = await fixture.user();
      const told = await CALLS[format](user, expected.model, stream);
      // The client hears of its cache reads in its own format's field.
      expect(told).toBe(expected.read);
      await fixture.test.sluice.idle();
      const [log, ...more] = await consumeLogs(fixture.test.sluice.database.db, user.userId);
      expect(more).toEqual([]);
      expect(log).toMatchObject({
        model_name: expected.model,
        client_format: format,
        is_stream: stream,
        prompt_tokens: expected.prompt,
        completion_tokens: expected.completion,
        quota: expected.quota,
      });
      expect(log?.content).toContain(`, cache read ${expected.read} tokens × `);
      if (expected.write > 0) expect(log?.content).toContain(`, cache write ${expected.write} tokens × 1.25`);
      else expect(log?.content).not.toContain('cache write');
    });
  });

  it('bills a request without cache tokens exactly as before, and says nothing of a cache', async () => {
    const user = await fixture.user();
    const saved = openai.usage;
    openai.usage = { prompt_tokens: 9, completion_tokens: 12 };
    try {
      await user.sdk.chat.completions.create({ model: GPT, messages: [{ role: 'user', content: 'Hi' }] });
    } finally {
      openai.usage = saved;
    }
    await fixture.test.sluice.idle();
    const [log] = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    expect(log).toMatchObject({ quota: Math.ceil((9 + 12 * 4) * 2.5), client_format: 'openai' });
    expect(log?.content).toBe('model ratio 2.50, group ratio 1.00, completion ratio 4.00');
  });
});
