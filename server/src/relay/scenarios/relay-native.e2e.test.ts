import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { LOG_TYPE } from '@sluice/contract/statuses';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { startGeminiDouble, type GeminiDouble } from '../../test-support/gemini-double.js';
import { streamAndLeave } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

const CLAUDE = 'claude-3-5-sonnet-20241022';
const GEMINI = 'gemini-1.5-pro';

const WEATHER_TOOL: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The current weather of a city',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

/** Reads a whole stream through the SDK: text, tool calls by index, finish reason and usage. */
const collect = async (stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) => {
  let text = '';
  let finish: string | null = null;
  const calls: { id: string; name: string; arguments: string }[] = [];
  const usages: OpenAI.Completions.CompletionUsage[] = [];
  for await (const chunk of stream) {
    if (chunk.usage) usages.push(chunk.usage);
    const choice = chunk.choices[0];
    if (!choice) continue;
    text += choice.delta.content ?? '';
    finish = choice.finish_reason ?? finish;
    for (const call of choice.delta.tool_calls ?? []) {
      const slot = (calls[call.index] ??= { id: '', name: '', arguments: '' });
      slot.id += call.id ?? '';
      slot.name += call.function?.name ?? '';
      slot.arguments += call.function?.arguments ?? '';
    }
  }
  return { text, finish, calls, usages };
};

describe('relay: native Anthropic and Gemini channels through the openai SDK', () => {
  let fixture: RelayFixture;
  let anthropic: AnthropicDouble;
  let gemini: GeminiDouble;
  beforeAll(async () => {
    anthropic = await startAnthropicDouble();
    gemini = await startGeminiDouble();
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({
      name: 'claude',
      type: CHANNEL_TYPE.anthropic,
      key: anthropic.key,
      base_url: anthropic.url,
      models: CLAUDE,
    });
    await fixture.channel({
      name: 'gemini',
      type: CHANNEL_TYPE.gemini,
      key: gemini.key,
      base_url: gemini.url,
      models: `${GEMINI},text-embedding-004`,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await anthropic?.close();
    await gemini?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  const logsOf = (userId: number) =>
    db()
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', LOG_TYPE.consume)
      .execute();
  const quotaOf = async (userId: number) =>
    (
      await db()
        .selectFrom('users')
        .select(['quota', 'used_quota'])
        .where('id', '=', userId)
        .executeTakeFirstOrThrow()
    ).quota;

  /** After the request settles: one log row with the provider's usage, and the user paid its quota. */
  const expectBilled = async (userId: number, model: string, prompt: number, completion: number) => {
    await fixture.test.sluice.idle();
    const logs = await logsOf(userId);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      model_name: model,
      prompt_tokens: prompt,
      completion_tokens: completion,
    });
    expect(logs[0]?.quota).toBeGreaterThan(0);
    expect(await quotaOf(userId)).toBe(10_000_000 - logs[0]!.quota);
    return logs[0]!;
  };

  describe('Anthropic (type 14)', () => {
    it('answers a non-stream chat and bills the provider’s usage', async () => {
      const user = await fixture.user();
      anthropic.usage = { input_tokens: 31, output_tokens: 17 };
      const completion = await user.sdk.chat.completions.create({
        model: CLAUDE,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello!' },
        ],
      });
      expect(completion.id).toBe('chatcmpl-msg_013Zva2CMHLNnXjNJJKqJ2EF');
      expect(completion.model).toBe(CLAUDE);
      expect(completion.choices[0]?.message.content).toBe(anthropic.reply);
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage).toEqual({ prompt_tokens: 31, completion_tokens: 17, total_tokens: 48 });
      const sent = anthropic.requests.at(-1)!;
      expect(sent.path).toBe('/v1/messages');
      expect(sent.headers['x-api-key']).toBe(anthropic.key);
      expect(sent.headers['anthropic-version']).toBe('2023-06-01');
      expect(sent.headers['authorization']).toBeUndefined();
      expect(sent.json).toEqual({
        model: CLAUDE,
        system: 'Be brief.',
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello!' }] }],
        max_tokens: 4096,
      });
      await expectBilled(user.userId, CLAUDE, 31, 17);
    });

    it('streams text as it arrives and reports the usage chunk when asked', async () => {
      const user = await fixture.user();
      anthropic.usage = { input_tokens: 12, output_tokens: 9 };
      const result = await collect(
        await user.sdk.chat.completions.create({
          model: CLAUDE,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      );
      expect(result.text).toBe(anthropic.reply);
      expect(result.finish).toBe('stop');
      expect(result.usages).toEqual([
        { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21, cost: expect.any(Number) as number },
      ]);
      expect(anthropic.requests.at(-1)?.json?.['stream']).toBe(true);
      const log = await expectBilled(user.userId, CLAUDE, 12, 9);
      expect(Boolean(log.is_stream)).toBe(true);
    });

    it('bills a client that disconnects mid-stream for the text generated, and aborts the upstream', async () => {
      const user = await fixture.user();
      anthropic.reply = Array.from({ length: 40 }, (_, index) => `word${index} `).join('');
      anthropic.pieceDelayMs = 15;
      anthropic.aborted.value = false;
      try {
        const chunks = await streamAndLeave(user, CLAUDE);
        expect(chunks).toBeLessThan(20);
        await expect.poll(() => anthropic.aborted.value, { timeout: 5000 }).toBe(true);
        await expect.poll(async () => (await logsOf(user.userId)).length, { timeout: 5000 }).toBe(1);
        const [log] = await logsOf(user.userId);
        // Anthropic's usage comes at the end, which never came: the text that did is counted.
        expect(log?.completion_tokens).toBeGreaterThan(0);
        expect(log?.completion_tokens).toBeLessThan(40);
        expect(log?.quota).toBeGreaterThan(0);
        // The quota pool gives back what the request did not cost once idle.
        await fixture.test.sluice.idle();
        expect(await quotaOf(user.userId)).toBe(10_000_000 - log!.quota);
      } finally {
        anthropic.pieceDelayMs = 0;
        anthropic.reply = 'Hello! How can I help you today?';
      }
    });

    it('round-trips a tool call (non-stream), then streams one', async () => {
      const user = await fixture.user();
      const question = { role: 'user' as const, content: 'Weather in Paris?' };
      const first = await user.sdk.chat.completions.create({
        model: CLAUDE,
        messages: [question],
        tools: [WEATHER_TOOL],
      });
      const message = first.choices[0]!.message;
      const call = message.tool_calls?.[0];
      expect(first.choices[0]?.finish_reason).toBe('tool_calls');
      expect(call?.type === 'function' && call.function.name).toBe('get_weather');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({
        location: 'Paris',
        unit: 'c',
      });
      expect(anthropic.requests.at(-1)?.json?.['tools']).toEqual([
        {
          name: 'get_weather',
          description: 'The current weather of a city',
          input_schema: WEATHER_TOOL.type === 'function' ? WEATHER_TOOL.function.parameters : {},
        },
      ]);
      const second = await user.sdk.chat.completions.create({
        model: CLAUDE,
        tools: [WEATHER_TOOL],
        messages: [
          question,
          { role: 'assistant', content: message.content, tool_calls: message.tool_calls },
          { role: 'tool', tool_call_id: call!.id, content: '15 degrees' },
        ],
      });
      expect(second.choices[0]?.message.content).toBe('The tool said: 15 degrees');
      expect(anthropic.requests.at(-1)?.json?.['messages']).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Let me check.' },
            { type: 'tool_use', id: call!.id, name: 'get_weather', input: { location: 'Paris', unit: 'c' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call!.id, content: '15 degrees' }] },
      ]);
      const streamed = await collect(
        await user.sdk.chat.completions.create({
          model: CLAUDE,
          stream: true,
          messages: [question],
          tools: [WEATHER_TOOL],
        }),
      );
      expect(streamed.text).toBe('Let me check.');
      expect(streamed.finish).toBe('tool_calls');
      expect(streamed.calls).toEqual([
        {
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'get_weather',
          arguments: '{"location":"Paris","unit":"c"}',
        },
      ]);
    });

    it('passes an upstream error on with its status and type, without the channel key', async () => {
      const user = await fixture.user();
      anthropic.failNext(400, 'invalid_request_error', `prompt is too long for key ${anthropic.key}`);
      const response = await fetch(`${fixture.server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: CLAUDE, messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({
        error: { type: 'invalid_request_error', code: 'invalid_request_error' },
      });
      expect(text).toContain('prompt is too long for key');
      expect(text).not.toContain(anthropic.key);
      expect(text).not.toContain(anthropic.url);
      await fixture.test.sluice.idle();
      expect(await logsOf(user.userId)).toHaveLength(0);
      expect(await quotaOf(user.userId)).toBe(10_000_000);
    });
  });

  describe('Gemini (type 24)', () => {
    it('answers a non-stream chat and bills the provider’s usage', async () => {
      const user = await fixture.user();
      gemini.usage = { promptTokenCount: 14, candidatesTokenCount: 11 };
      const completion = await user.sdk.chat.completions.create({
        model: GEMINI,
        messages: [
          { role: 'system', content: 'You are a fox.' },
          { role: 'user', content: 'Say something.' },
          { role: 'assistant', content: 'Yip.' },
          { role: 'user', content: 'More.' },
        ],
        temperature: 0.3,
        max_tokens: 100,
      });
      expect(completion.id).toBe('chatcmpl-gemini-response-1');
      expect(completion.choices[0]?.message.content).toBe(gemini.reply);
      expect(completion.usage).toEqual({ prompt_tokens: 14, completion_tokens: 11, total_tokens: 25 });
      const sent = gemini.requests.at(-1)!;
      expect(sent.path).toBe(`/v1beta/models/${GEMINI}:generateContent`);
      expect(sent.headers['x-goog-api-key']).toBe(gemini.key);
      expect(sent.json).toMatchObject({
        contents: [
          { role: 'user', parts: [{ text: 'Say something.' }] },
          { role: 'model', parts: [{ text: 'Yip.' }] },
          { role: 'user', parts: [{ text: 'More.' }] },
        ],
        systemInstruction: { parts: [{ text: 'You are a fox.' }] },
        generationConfig: { temperature: 0.3, maxOutputTokens: 100 },
      });
      await expectBilled(user.userId, GEMINI, 14, 11);
    });

    it('streams text as it arrives and reports the usage chunk when asked', async () => {
      const user = await fixture.user();
      gemini.usage = { promptTokenCount: 6, candidatesTokenCount: 10 };
      const result = await collect(
        await user.sdk.chat.completions.create({
          model: GEMINI,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'Tell me a story' }],
        }),
      );
      expect(result.text).toBe(gemini.reply);
      expect(result.finish).toBe('stop');
      expect(result.usages).toEqual([
        { prompt_tokens: 6, completion_tokens: 10, total_tokens: 16, cost: expect.any(Number) as number },
      ]);
      expect(gemini.requests.at(-1)?.path).toBe(`/v1beta/models/${GEMINI}:streamGenerateContent`);
      await expectBilled(user.userId, GEMINI, 6, 10);
    });

    it('round-trips a function call, naming the response after the matching call', async () => {
      const user = await fixture.user();
      const question = { role: 'user' as const, content: 'Weather in Paris?' };
      const first = await user.sdk.chat.completions.create({
        model: GEMINI,
        messages: [question],
        tools: [WEATHER_TOOL],
      });
      const call = first.choices[0]?.message.tool_calls?.[0];
      expect(first.choices[0]?.finish_reason).toBe('tool_calls');
      expect(first.choices[0]?.message.content).toBeNull();
      expect(call?.id).toMatch(/^call_/);
      expect(call?.type === 'function' && call.function.name).toBe('get_weather');
      expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({
        location: 'Paris',
        unit: 'c',
      });
      const second = await user.sdk.chat.completions.create({
        model: GEMINI,
        tools: [WEATHER_TOOL],
        messages: [
          question,
          { role: 'assistant', content: null, tool_calls: first.choices[0]?.message.tool_calls },
          { role: 'tool', tool_call_id: call!.id, content: '{"temperature":15}' },
        ],
      });
      expect(second.choices[0]?.message.content).toBe('get_weather said {"temperature":15}');
      expect(gemini.requests.at(-1)?.json?.['contents']).toEqual([
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'get_weather', args: { location: 'Paris', unit: 'c' } } }],
        },
        {
          role: 'user',
          parts: [{ functionResponse: { name: 'get_weather', response: { temperature: 15 } } }],
        },
      ]);
      const streamed = await collect(
        await user.sdk.chat.completions.create({
          model: GEMINI,
          stream: true,
          messages: [question],
          tools: [WEATHER_TOOL],
        }),
      );
      expect(streamed.finish).toBe('tool_calls');
      expect(streamed.calls).toEqual([
        {
          id: expect.stringMatching(/^call_/),
          name: 'get_weather',
          arguments: '{"location":"Paris","unit":"c"}',
        },
      ]);
    });

    it('answers embeddings (base64 as the SDK asks, floats otherwise) and bills the estimate', async () => {
      const user = await fixture.user();
      const input = ['What is the meaning of life?', 'How much wood would a woodchuck chuck?'];
      const embeddings = await user.sdk.embeddings.create({ model: 'text-embedding-004', input });
      expect(embeddings.data.map((item) => item.embedding)).toEqual(
        input.map(() => gemini.vector.map((value) => Math.fround(value))),
      );
      expect(gemini.requests.at(-1)?.path).toBe('/v1beta/models/text-embedding-004:batchEmbedContents');
      const estimate = Math.ceil(input.join('').length / 4);
      expect(embeddings.usage).toEqual({ prompt_tokens: estimate, total_tokens: estimate });
      await expectBilled(user.userId, 'text-embedding-004', estimate, 0);
      const floats = await user.sdk.embeddings.create({
        model: 'text-embedding-004',
        input: 'hi',
        encoding_format: 'float',
      });
      expect(floats.data[0]?.embedding).toEqual(gemini.vector);
    });

    it('passes an upstream error on with its status, without the channel key', async () => {
      const user = await fixture.user();
      gemini.failNext(400, 'INVALID_ARGUMENT', `API key not valid: ${gemini.key}`);
      const response = await fetch(`${fixture.server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: GEMINI, stream: true, messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({
        error: { type: 'INVALID_ARGUMENT', code: 'INVALID_ARGUMENT' },
      });
      expect(text).toContain('API key not valid');
      expect(text).not.toContain(gemini.key);
      await fixture.test.sluice.idle();
      expect(await logsOf(user.userId)).toHaveLength(0);
      expect(await quotaOf(user.userId)).toBe(10_000_000);
    });
  });
});

describe('relay: GEMINI_VERSION and GEMINI_SAFETY_SETTING reach the Gemini requests', () => {
  let fixture: RelayFixture;
  let gemini: GeminiDouble;
  beforeAll(async () => {
    gemini = await startGeminiDouble();
    fixture = await startRelayFixture('sqlite', {
      GEMINI_VERSION: 'v1',
      GEMINI_SAFETY_SETTING: 'block_only_high',
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await gemini?.close();
  });

  it('calls the version of the variable unless the channel sets its own, with the safety threshold', async () => {
    // gemini-1.0-pro exists in v1; gemini-1.5 and later only in v1beta, whatever the variable says.
    const legacy = 'gemini-1.0-pro';
    await fixture.channel({
      name: 'g-env',
      type: CHANNEL_TYPE.gemini,
      key: gemini.key,
      base_url: gemini.url,
      models: `${legacy},${GEMINI}`,
      group: 'genv',
    });
    await fixture.channel({
      name: 'g-own',
      type: CHANNEL_TYPE.gemini,
      key: gemini.key,
      base_url: gemini.url,
      models: legacy,
      group: 'gown',
      config: '{"api_version":"v1beta"}',
    });
    const before = gemini.requests.length;
    for (const [group, model] of [
      ['genv', legacy],
      ['gown', legacy],
      ['genv', GEMINI],
    ] as const) {
      const user = await fixture.user({ group });
      await user.sdk.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hi' }] });
    }
    const sent = gemini.requests.slice(before);
    expect(sent.map((request) => request.path)).toEqual([
      `/v1/models/${legacy}:generateContent`,
      `/v1beta/models/${legacy}:generateContent`,
      `/v1beta/models/${GEMINI}:generateContent`,
    ]);
    const safety = sent[0]?.json?.['safetySettings'] as { threshold: string }[];
    expect(safety.length).toBeGreaterThan(0);
    expect(new Set(safety.map((setting) => setting.threshold))).toEqual(new Set(['BLOCK_ONLY_HIGH']));
  });
});
