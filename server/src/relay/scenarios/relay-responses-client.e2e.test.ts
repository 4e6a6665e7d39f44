import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { request as httpRequest } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { startGeminiDouble, type GeminiDouble } from '../../test-support/gemini-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { consumeLogs, gpt4oCost } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';

const CLAUDE = 'claude-3-5-sonnet-20241022';
const GEMINI = 'gemini-1.5-pro';
/** Served by an OpenAI-compatible channel that is not OpenAI's own: translated to chat completions. */
const COMPATIBLE = 'deepseek-chat';

const WEATHER: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Get the current weather in a given location',
  parameters: {
    type: 'object',
    properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['location', 'unit'],
    additionalProperties: false,
  },
  strict: true,
};

describe('relay: OpenAI Responses clients (the openai SDK) on every kind of channel', () => {
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
      name: 'compatible',
      type: CHANNEL_TYPE.deepSeek,
      base_url: compatible.url,
      models: COMPATIBLE,
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

  const billed = async (user: RelayUser) => {
    await fixture.test.sluice.idle();
    return consumeLogs(fixture.test.sluice.database.db, user.userId);
  };

  describe('to OpenAI’s own channel: passed through untouched', () => {
    it('answers as OpenAI answered, the body sent as it came, billed by its usage', async () => {
      const user = await fixture.user();
      const request = {
        model: 'gpt-4o',
        input: 'Tell me a three sentence bedtime story about a unicorn.',
        store: false,
        include: ['reasoning.encrypted_content'],
      };
      const response = await user.sdk.responses.create(
        request as OpenAI.Responses.ResponseCreateParamsNonStreaming,
      );
      expect(response.output_text).toBe(openai.reply);
      const sent = openai.requests.at(-1)!;
      expect(sent.path).toBe('/v1/responses');
      expect(sent.json).toEqual(request);
      const [log] = await billed(user);
      expect(log).toMatchObject({
        model_name: 'gpt-4o',
        prompt_tokens: 9,
        completion_tokens: 12,
        quota: gpt4oCost(9, 12),
      });
    });

    it('streams OpenAI’s events as they came', async () => {
      const user = await fixture.user();
      const stream = await user.sdk.responses.create({ model: 'gpt-4o', input: 'Hi', stream: true });
      const types: string[] = [];
      let text = '';
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.output_text.delta') text += event.delta;
      }
      expect(text).toBe(openai.reply);
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      const [log] = await billed(user);
      expect(log).toMatchObject({ prompt_tokens: 9, completion_tokens: 12 });
    });
  });

  describe('to other channels: translated through the hub', () => {
    it('answers an OpenAI-compatible channel’s chat completion as a Response', async () => {
      const user = await fixture.user();
      const response = await user.sdk.responses.create({
        model: COMPATIBLE,
        instructions: 'Be brief.',
        input: 'Hello',
        max_output_tokens: 100,
      });
      expect(response.object).toBe('response');
      expect(response.status).toBe('completed');
      expect(response.output_text).toBe(compatible.reply);
      expect(response.usage).toMatchObject({ input_tokens: 9, output_tokens: 12, total_tokens: 21 });
      expect(compatible.requests.at(-1)?.path).toBe('/v1/chat/completions');
      expect(compatible.requests.at(-1)?.json).toMatchObject({
        model: COMPATIBLE,
        max_tokens: 100,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
      });
      const [log] = await billed(user);
      expect(log).toMatchObject({ model_name: COMPATIBLE, prompt_tokens: 9, completion_tokens: 12 });
    });

    it('streams a translated answer through the SDK’s stream helper', async () => {
      const user = await fixture.user();
      const stream = user.sdk.responses.stream({ model: COMPATIBLE, input: 'Hello' });
      const final = await stream.finalResponse();
      expect(final.output_text).toBe(compatible.reply);
      expect(final.usage?.output_tokens).toBe(12);
      expect((await billed(user))[0]).toMatchObject({ prompt_tokens: 9, completion_tokens: 12 });
    });

    it('runs a function-calling round trip on an Anthropic channel, streamed', async () => {
      const user = await fixture.user();
      const question: OpenAI.Responses.ResponseInputItem = { role: 'user', content: 'Weather in Paris?' };
      const first = await user.sdk.responses
        .stream({ model: CLAUDE, input: [question], tools: [WEATHER] })
        .finalResponse();
      const call = first.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
      if (call?.type !== 'function_call') throw new Error('no function call');
      expect(JSON.parse(call.arguments)).toEqual({ location: 'Paris', unit: 'c' });
      const second = await user.sdk.responses.create({
        model: CLAUDE,
        tools: [WEATHER],
        input: [
          question,
          call,
          { type: 'function_call_output', call_id: call.call_id, output: '15 degrees' },
        ],
      });
      expect(second.output_text).toBe('The tool said: 15 degrees');
      const sent = anthropic.requests.at(-1)?.json?.['messages'] as unknown[];
      expect(JSON.stringify(sent)).toContain('tool_result');
      expect((await billed(user)).length).toBe(2);
    });

    it('answers a Gemini channel', async () => {
      const user = await fixture.user();
      const response = await user.sdk.responses.create({ model: GEMINI, input: 'Hello' });
      expect(response.output_text).toBe(gemini.reply);
      expect((await billed(user))[0]).toMatchObject({
        model_name: GEMINI,
        prompt_tokens: 8,
        completion_tokens: 10,
      });
    });
  });

  describe('the WebSocket transport', () => {
    it('answers an upgrade to a WebSocket with 426, so a client falls back to HTTP at once', async () => {
      const user = await fixture.user();
      const upgrade = (key: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const request = httpRequest(`${fixture.server.url}/v1/responses`, {
            headers: {
              connection: 'Upgrade',
              upgrade: 'websocket',
              'sec-websocket-version': '13',
              'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
              'openai-beta': 'responses_websockets=2026-02-06',
              authorization: `Bearer ${key}`,
            },
          });
          request.once('response', (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
            response.once('end', () => resolve({ status: response.statusCode ?? 0, body }));
          });
          request.once('upgrade', () => reject(new Error('the connection was upgraded')));
          request.once('error', reject);
          request.end();
        });
      const refused = await upgrade(`sk-${user.key}`);
      expect(refused.status).toBe(426);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'websocket_not_supported' } });
      expect((await upgrade('sk-wrong')).status).toBe(401);
      const plain = await fetch(`${fixture.server.url}/v1/responses`, {
        headers: { authorization: `Bearer sk-${user.key}` },
      });
      expect(plain.status).toBe(501);
    });
  });

  describe('what a stateless gateway refuses', () => {
    it('passes previous_response_id through to OpenAI’s own channel, which keeps the state', async () => {
      const user = await fixture.user({ token: { models: 'gpt-4o' } });
      const response = await user.sdk.responses.create({
        model: 'gpt-4o',
        input: 'And then?',
        previous_response_id: 'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
      });
      expect(response.output_text).toBe(openai.reply);
      expect(openai.requests.at(-1)?.json?.['previous_response_id']).toBe(
        'resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b',
      );
    });

    it('refuses previous_response_id on a translated channel with a clear 400, billing nothing', async () => {
      const user = await fixture.user();
      const error = await user.sdk.responses
        .create({ model: COMPATIBLE, input: 'Hello', previous_response_id: 'resp_123' })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(String((error as Error).message)).toContain('previous_response_id');
      expect(await billed(user)).toEqual([]);
    });
  });
});
