import Anthropic from '@anthropic-ai/sdk';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { startGeminiDouble, type GeminiDouble } from '../../test-support/gemini-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { consumeLogs, gpt4oCost } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';

const CLAUDE = 'claude-3-5-sonnet-20241022';
/** A name the Anthropic channel maps to CLAUDE. */
const MAPPED = 'claude-house';
const GEMINI = 'gemini-1.5-pro';

const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  input_schema: {
    type: 'object',
    properties: { location: { type: 'string', description: 'The city and state' } },
    required: ['location'],
  },
};

describe('relay: Anthropic Messages clients (the official SDK) on every kind of channel', () => {
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
      models: `${CLAUDE},${MAPPED}`,
      model_mapping: JSON.stringify({ [MAPPED]: CLAUDE }),
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

  const db = () => fixture.test.sluice.database.db;
  const sdkOf = (user: RelayUser) =>
    new Anthropic({ apiKey: `sk-${user.key}`, baseURL: fixture.server.url, maxRetries: 0 });
  const billed = async (user: RelayUser) => {
    await fixture.test.sluice.idle();
    return consumeLogs(db(), user.userId);
  };

  describe('to an Anthropic channel: passed through untouched', () => {
    it('answers a message as the channel answered it, and bills its usage', async () => {
      const user = await fixture.user();
      anthropic.usage = { input_tokens: 31, output_tokens: 17 };
      const message = await sdkOf(user).messages.create({
        model: CLAUDE,
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'Hello, Claude' }],
      });
      expect(message).toMatchObject({
        id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
        type: 'message',
        role: 'assistant',
        model: CLAUDE,
        content: [{ type: 'text', text: anthropic.reply }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 31, output_tokens: 17 },
      });
      const sent = anthropic.requests.at(-1)!;
      expect(sent.headers['x-api-key']).toBe(anthropic.key);
      expect(sent.headers['authorization']).toBeUndefined();
      const [log] = await billed(user);
      expect(log).toMatchObject({ model_name: CLAUDE, prompt_tokens: 31, completion_tokens: 17 });
      expect(log?.quota).toBeGreaterThan(0);
    });

    it('sends the client’s bytes as they came, fields Sluice does not know included', async () => {
      const user = await fixture.user();
      const body = JSON.stringify({
        model: CLAUDE,
        max_tokens: 64,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', citations: { enabled: true } }] }],
        thinking: { type: 'enabled', budget_tokens: 2048 },
        metadata: { user_id: 'session-4a1b' },
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        a_field_from_the_future: [1, { nested: true }],
      });
      const response = await fetch(`${fixture.server.url}/v1/messages?beta=true`, {
        method: 'POST',
        headers: {
          'x-api-key': `sk-${user.key}`,
          'anthropic-version': '2023-06-01',
          'anthropic-beta': 'interleaved-thinking-2025-05-14,context-management-2025-06-27',
          'content-type': 'application/json',
        },
        body,
      });
      expect(response.status).toBe(200);
      const sent = anthropic.requests.at(-1)!;
      expect(sent.body.toString('utf8')).toBe(body);
      expect(sent.headers['anthropic-beta']).toBe(
        'interleaved-thinking-2025-05-14,context-management-2025-06-27',
      );
    });

    it('replaces only the model when the channel maps it', async () => {
      const user = await fixture.user();
      const request = { model: MAPPED, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], x: 1 };
      await sdkOf(user).messages.create(request as Anthropic.MessageCreateParamsNonStreaming);
      expect(anthropic.requests.at(-1)?.json).toEqual({ ...request, model: CLAUDE });
      const [log] = await billed(user);
      expect(log?.model_name).toBe(CLAUDE);
    });

    it('streams the channel’s events and bills the usage they carry', async () => {
      const user = await fixture.user();
      anthropic.usage = { input_tokens: 12, output_tokens: 9 };
      const stream = sdkOf(user).messages.stream({
        model: CLAUDE,
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      const events: string[] = [];
      stream.on('streamEvent', (event) => events.push(event.type));
      const message = await stream.finalMessage();
      expect(message.content).toMatchObject([{ type: 'text', text: anthropic.reply }]);
      expect(message.usage).toMatchObject({ input_tokens: 12, output_tokens: 9 });
      expect(events[0]).toBe('message_start');
      expect(events.at(-1)).toBe('message_stop');
      const [log] = await billed(user);
      expect(log).toMatchObject({ prompt_tokens: 12, completion_tokens: 9 });
      expect(Boolean(log?.is_stream)).toBe(true);
    });

    it('bills a client that leaves mid-stream for the input said at the start and the text that came', async () => {
      const user = await fixture.user();
      anthropic.usage = { input_tokens: 25, output_tokens: 15 };
      anthropic.reply = Array.from({ length: 40 }, (_, index) => `word${index} `).join('');
      anthropic.pieceDelayMs = 15;
      anthropic.aborted.value = false;
      try {
        const controller = new AbortController();
        const stream = sdkOf(user).messages.stream(
          { model: CLAUDE, max_tokens: 1024, messages: [{ role: 'user', content: 'long' }] },
          { signal: controller.signal },
        );
        let deltas = 0;
        stream.on('text', () => {
          deltas += 1;
          if (deltas === 4) controller.abort();
        });
        await stream.done().catch(() => undefined);
        await expect.poll(() => anthropic.aborted.value, { timeout: 5000 }).toBe(true);
        await fixture.test.sluice.idle();
        const [log] = await consumeLogs(fixture.test.sluice.database.db, user.userId);
        expect(log?.prompt_tokens).toBe(25);
        expect(log?.completion_tokens).toBeGreaterThan(1);
        expect(log?.completion_tokens).toBeLessThan(60);
      } finally {
        anthropic.pieceDelayMs = 0;
        anthropic.reply = 'Hello! How can I help you today?';
      }
    });

    it('streams a tool call, then takes its result', async () => {
      const user = await fixture.user();
      const sdk = sdkOf(user);
      const question: Anthropic.MessageParam = { role: 'user', content: 'What is the weather in Paris?' };
      const first = await sdk.messages
        .stream({ model: CLAUDE, max_tokens: 256, tools: [WEATHER], messages: [question] })
        .finalMessage();
      const call = first.content.find((block) => block.type === 'tool_use');
      expect(first.stop_reason).toBe('tool_use');
      expect(call).toMatchObject({ name: 'get_weather', input: { location: 'Paris', unit: 'c' } });
      const second = await sdk.messages.create({
        model: CLAUDE,
        max_tokens: 256,
        tools: [WEATHER],
        messages: [
          question,
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: call!.type === 'tool_use' ? call!.id : '',
                content: '15 degrees',
              },
            ],
          },
        ],
      });
      expect(second.content[0]).toMatchObject({ type: 'text', text: 'The tool said: 15 degrees' });
    });

    it('says the channel’s refusal in Anthropic’s shape', async () => {
      const user = await fixture.user();
      anthropic.failNext(400, 'invalid_request_error', 'messages: at least one message is required');
      const error = await sdkOf(user)
        .messages.create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error' },
      });
      expect(String((error as Error).message)).toContain('at least one message is required');
      expect(await billed(user)).toEqual([]);
    });
  });

  describe('to an OpenAI channel: translated through the hub', () => {
    it('answers a message in Anthropic’s shape, billed by the OpenAI usage', async () => {
      const user = await fixture.user();
      const message = await sdkOf(user).messages.create({
        model: 'gpt-4o',
        max_tokens: 100,
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Hello' }],
      });
      expect(message.type).toBe('message');
      expect(message.model).toBe('gpt-4o');
      expect(message.content).toEqual([{ type: 'text', text: openai.reply }]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.usage).toMatchObject({ input_tokens: 9, output_tokens: 12 });
      const sent = openai.requests.at(-1)!;
      expect(sent.path).toBe('/v1/chat/completions');
      expect(sent.json).toMatchObject({
        model: 'gpt-4o',
        max_tokens: 100,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
      });
      const [log] = await billed(user);
      expect(log).toMatchObject({
        model_name: 'gpt-4o',
        prompt_tokens: 9,
        completion_tokens: 12,
        quota: gpt4oCost(9, 12),
      });
    });

    it('streams in Anthropic’s events, with the usage at the end', async () => {
      const user = await fixture.user();
      const stream = sdkOf(user).messages.stream({
        model: 'gpt-4o',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hello' }],
      });
      const events: string[] = [];
      stream.on('streamEvent', (event) => events.push(event.type));
      const message = await stream.finalMessage();
      expect(message.content[0]).toMatchObject({ type: 'text', text: openai.reply });
      expect(message.usage.output_tokens).toBe(12);
      expect(events[0]).toBe('message_start');
      expect(events).toContain('content_block_delta');
      expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
      const [log] = await billed(user);
      expect(log).toMatchObject({ prompt_tokens: 9, completion_tokens: 12, quota: gpt4oCost(9, 12) });
    });
  });

  describe('to a Gemini channel: translated both ways', () => {
    it('calls a tool and reads its result, streamed', async () => {
      const user = await fixture.user();
      const first = await sdkOf(user)
        .messages.stream({
          model: GEMINI,
          max_tokens: 256,
          tools: [WEATHER],
          messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
        })
        .finalMessage();
      expect(first.stop_reason).toBe('tool_use');
      expect(first.content.find((block) => block.type === 'tool_use')).toMatchObject({
        name: 'get_weather',
        input: { location: 'Paris', unit: 'c' },
      });
      const declared = gemini.requests.at(-1)?.json?.['tools'];
      expect(JSON.stringify(declared)).toContain('get_weather');
      expect((await billed(user))[0]?.model_name).toBe(GEMINI);
    });
  });

  describe('the model list', () => {
    it('answers GET /v1/models in Anthropic’s shape to an Anthropic client, with x-api-key', async () => {
      const user = await fixture.user({ token: { models: `${CLAUDE},gpt-4o` } });
      const page = await sdkOf(user).models.list();
      expect(page.data.map((model) => model.id)).toEqual([CLAUDE, 'gpt-4o']);
      expect(page.data[0]).toMatchObject({ type: 'model', display_name: CLAUDE });
    });
  });

  describe('errors and the count route', () => {
    it('refuses a wrong key with Anthropic’s authentication_error', async () => {
      const error = await new Anthropic({
        apiKey: 'sk-wrong',
        baseURL: fixture.server.url,
        maxRetries: 0,
      }).messages
        .create({ model: CLAUDE, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((error as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
        type: 'error',
        error: { type: 'authentication_error' },
      });
    });

    it('says what is wrong with a body in Anthropic’s invalid_request_error, and bills nothing', async () => {
      const user = await fixture.user();
      const response = await fetch(`${fixture.server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': `sk-${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: CLAUDE, messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { type: string; error: { type: string; message: string } };
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.message).toContain('max_tokens');
      expect(await billed(user)).toEqual([]);
    });

    it('counts a request’s tokens without relaying or billing it', async () => {
      const user = await fixture.user();
      const before = anthropic.requests.length;
      const counted = await sdkOf(user).messages.countTokens({
        model: CLAUDE,
        system: 'You are a scientist',
        messages: [{ role: 'user', content: 'Hello, Claude. Tell me about the periodic table.' }],
      });
      expect(counted.input_tokens).toBeGreaterThan(5);
      expect(counted.input_tokens).toBeLessThan(40);
      expect(anthropic.requests.length).toBe(before);
      expect(await billed(user)).toEqual([]);
    });
  });
});
