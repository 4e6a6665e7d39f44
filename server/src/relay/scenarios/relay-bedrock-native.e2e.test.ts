import Anthropic from '@anthropic-ai/sdk';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLAUDE_SIGNATURE,
  CLAUDE_THINKING,
  CLAUDE_TOOL_ID,
  claudeMessage,
} from '../../test-support/bedrock-claude-answers.js';
import { startBedrockDouble, type BedrockDouble } from '../../test-support/bedrock-double.js';
import { consumeLogs, formulaCost } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';

const CLAUDE = 'claude-3-5-sonnet-20241022';
const CLAUDE_ID = 'anthropic.claude-3-5-sonnet-20241022-v2:0';
const LLAMA = 'llama3-70b-8192';

/** The price of a usage on a Bedrock channel, by one-api's formula. */
const formula = (model: string, prompt: number, completion: number): number =>
  formulaCost(model, CHANNEL_TYPE.aws, prompt, completion);

const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The current weather of a city',
  input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

describe('relay: Anthropic clients (the official SDK) passed through natively to a Bedrock Claude channel', () => {
  let fixture: RelayFixture;
  let bedrock: BedrockDouble;
  beforeAll(async () => {
    bedrock = await startBedrockDouble();
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({
      name: 'bedrock',
      type: CHANNEL_TYPE.aws,
      key: bedrock.channelKey,
      base_url: bedrock.url,
      models: `${CLAUDE},${LLAMA}`,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await bedrock?.close();
  });

  const sdkOf = (user: RelayUser) =>
    new Anthropic({ apiKey: `sk-${user.key}`, baseURL: fixture.server.url, maxRetries: 0 });
  const billed = async (user: RelayUser) => {
    await fixture.test.sluice.idle();
    return consumeLogs(fixture.test.sluice.database.db, user.userId);
  };

  it('answers messages.create with InvokeModel’s message byte for byte, signed, billed by the formula', async () => {
    const user = await fixture.user();
    bedrock.usage = { inputTokens: 23, outputTokens: 11 };
    const request = { model: CLAUDE, max_tokens: 300, messages: [{ role: 'user' as const, content: 'Hi' }] };
    const message = await sdkOf(user).messages.create(request);
    expect(message).toEqual(claudeMessage(request, bedrock));
    const sent = bedrock.requests.at(-1)!;
    expect(sent).toMatchObject({ modelId: CLAUDE_ID, operation: 'invoke' });
    // The double verified the signature (a 403 otherwise); the body is the client's, as Bedrock wants it.
    expect(sent.headers['authorization']).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDBEDROCKDOUBLE01\//);
    expect(sent.body).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 300,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    // The answer's bytes are the double's own.
    const response = await fetch(`${fixture.server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': `sk-${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(await response.text()).toBe(JSON.stringify(claudeMessage(request, bedrock)));
    const logs = await billed(user);
    expect(logs.map((log) => [log.model_name, log.prompt_tokens, log.completion_tokens, log.quota])).toEqual([
      [CLAUDE, 23, 11, formula(CLAUDE, 23, 11)],
      [CLAUDE, 23, 11, formula(CLAUDE, 23, 11)],
    ]);
  });

  it('sends every field the client sent, unknown ones included, and its betas as anthropic_beta', async () => {
    const user = await fixture.user();
    const body = {
      model: CLAUDE,
      max_tokens: 64,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'Hi 你好', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 1 }],
      metadata: { user_id: 'session-4a1b' },
      future_field: { x: 1 },
    };
    const response = await fetch(`${fixture.server.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'x-api-key': `sk-${user.key}`,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'interleaved-thinking-2025-05-14,extended-cache-ttl-2025-04-11',
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    const sent = bedrock.requests.at(-1)!;
    const { model: _model, ...rest } = body;
    expect(sent.raw).toBe(
      JSON.stringify({
        anthropic_version: 'bedrock-2023-05-31',
        anthropic_beta: ['interleaved-thinking-2025-05-14', 'extended-cache-ttl-2025-04-11'],
        ...rest,
      }),
    );
    expect(sent.headers['anthropic-beta']).toBeUndefined();
    expect(sent.headers['x-api-key']).toBeUndefined();
  });

  it('streams thinking and a tool call (messages.stream), re-framed from the event stream, billed by the formula', async () => {
    const user = await fixture.user();
    bedrock.usage = { inputTokens: 41, outputTokens: 29 };
    const stream = sdkOf(user).messages.stream({
      model: CLAUDE,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      tools: [WEATHER],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    });
    const events: string[] = [];
    stream.on('streamEvent', (event) => events.push(event.type));
    let thinking = '';
    stream.on('thinking', (delta) => {
      thinking += delta;
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([
      { type: 'thinking', thinking: CLAUDE_THINKING, signature: CLAUDE_SIGNATURE },
      { type: 'tool_use', id: CLAUDE_TOOL_ID, name: 'get_weather', input: { location: 'Paris' } },
    ]);
    expect(thinking).toBe(CLAUDE_THINKING);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 41, output_tokens: 29 });
    expect(events[0]).toBe('message_start');
    expect(events.at(-1)).toBe('message_stop');
    expect(bedrock.requests.at(-1)).toMatchObject({
      modelId: CLAUDE_ID,
      operation: 'invoke-with-response-stream',
      body: { thinking: { type: 'enabled', budget_tokens: 2048 }, tools: [WEATHER] },
    });
    expect(bedrock.requests.at(-1)?.body['stream']).toBeUndefined();
    const [log] = await billed(user);
    expect(log).toMatchObject({
      model_name: CLAUDE,
      prompt_tokens: 41,
      completion_tokens: 29,
      quota: formula(CLAUDE, 41, 29),
      is_stream: true,
    });
  });

  it('ends the stream with Anthropic’s error event on a throttling exception mid-stream, the key scrubbed', async () => {
    const user = await fixture.user();
    bedrock.usage = { inputTokens: 19, outputTokens: 40 };
    bedrock.failMidStream('throttlingException', `Too many tokens for ${bedrock.secretAccessKey}, slow down`);
    const stream = sdkOf(user).messages.stream({
      model: CLAUDE,
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const failure = await stream.finalMessage().catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(Anthropic.APIError);
    const error = (failure as InstanceType<typeof Anthropic.APIError>).error as {
      error?: { type?: string; message?: string };
    };
    expect(error.error).toEqual({
      type: 'rate_limit_error',
      message: 'Too many tokens for [redacted], slow down',
    });
    expect(JSON.stringify(failure)).not.toContain(bedrock.secretAccessKey);
    // Billed for what came: the input message_start said, the output counted from the text.
    const [log] = await billed(user);
    expect(log).toMatchObject({ model_name: CLAUDE, prompt_tokens: 19, is_stream: true });
    expect(log?.completion_tokens).toBeGreaterThan(0);
    expect(log?.completion_tokens).toBeLessThan(40);
    expect(log?.quota).toBe(formula(CLAUDE, 19, log?.completion_tokens ?? 0));
  });

  it('answers Bedrock’s errors before the stream in Anthropic’s shape with the upstream’s status', async () => {
    const user = await fixture.user();
    bedrock.failNext(
      400,
      'ValidationException',
      'Malformed input request: #: extraneous key [foo] is not permitted',
    );
    const invalid = await sdkOf(user)
      .messages.create({ model: CLAUDE, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] })
      .catch((caught: unknown) => caught);
    expect(invalid).toBeInstanceOf(Anthropic.BadRequestError);
    expect((invalid as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining('extraneous key [foo] is not permitted') as unknown,
      },
    });
    bedrock.failNext(429, 'ThrottlingException', `Rate exceeded for ${bedrock.secretAccessKey}`);
    const throttled = await sdkOf(user)
      .messages.stream({ model: CLAUDE, max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(throttled).toBeInstanceOf(Anthropic.RateLimitError);
    expect((throttled as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: 'error',
      error: { type: 'rate_limit_error' },
    });
    expect(JSON.stringify(throttled)).not.toContain(bedrock.secretAccessKey);
    expect(await billed(user)).toEqual([]);
  });

  it('translates an Anthropic client asking for a model Bedrock serves through Converse', async () => {
    const user = await fixture.user();
    const message = await sdkOf(user).messages.create({
      model: LLAMA,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: bedrock.reply }]);
    expect(bedrock.requests.at(-1)).toMatchObject({
      modelId: 'meta.llama3-70b-instruct-v1:0',
      operation: 'converse',
    });
  });
});
