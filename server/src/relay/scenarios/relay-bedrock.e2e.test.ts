import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { LOG_TYPE } from '@sluice/contract/statuses';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBedrockDouble, type BedrockDouble } from '../../test-support/bedrock-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';
import { formulaCost } from '../../test-support/relay-helpers.js';

const LLAMA = 'llama3-70b-8192';
const CLAUDE = 'claude-3-5-sonnet-20241022';

/** The price of a usage on a Bedrock channel, by one-api's formula. */
const formula = (model: string, prompt: number, completion: number): number =>
  formulaCost(model, CHANNEL_TYPE.aws, prompt, completion);

const WEATHER: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'The current weather of a city',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
};

describe('relay: an AWS Bedrock channel (SigV4, event stream) through the openai SDK', () => {
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
      models: `${LLAMA},${CLAUDE}`,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await bedrock?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  const expectBilled = async (userId: number, model: string, calls = 1) => {
    await fixture.test.sluice.idle();
    const logs = await db()
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', LOG_TYPE.consume)
      .execute();
    const { inputTokens, outputTokens } = bedrock.usage;
    const cost = formula(model, inputTokens, outputTokens);
    expect(cost).toBeGreaterThan(0);
    expect(logs).toHaveLength(calls);
    for (const log of logs)
      expect(log).toMatchObject({
        model_name: model,
        prompt_tokens: inputTokens,
        completion_tokens: outputTokens,
        quota: cost,
      });
  };

  it('answers a Converse chat, signed, billed by the formula on Bedrock’s usage', async () => {
    const user = await fixture.user();
    const answer = await user.sdk.chat.completions.create({
      model: LLAMA,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(answer.choices[0]?.message.content).toBe(bedrock.reply);
    expect(answer.usage).toMatchObject({ prompt_tokens: 31, completion_tokens: 17 });
    expect(bedrock.requests.at(-1)).toMatchObject({
      modelId: 'meta.llama3-70b-instruct-v1:0',
      operation: 'converse',
    });
    await expectBilled(user.userId, LLAMA);
  });

  it('streams a ConverseStream through the event stream, with usage, billed by the formula', async () => {
    const user = await fixture.user();
    const stream = await user.sdk.chat.completions.create({
      model: LLAMA,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.Completions.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(bedrock.reply);
    expect(usage).toMatchObject({ prompt_tokens: 31, completion_tokens: 17 });
    expect(bedrock.requests.at(-1)?.operation).toBe('converse-stream');
    await expectBilled(user.userId, LLAMA);
  });

  it('calls a tool through Converse and through ConverseStream', async () => {
    const user = await fixture.user();
    const answer = await user.sdk.chat.completions.create({
      model: LLAMA,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER],
    });
    expect(answer.choices[0]?.finish_reason).toBe('tool_calls');
    expect(answer.choices[0]?.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
    });
    expect(bedrock.requests.at(-1)?.body['toolConfig']).toMatchObject({
      tools: [{ toolSpec: { name: 'get_weather' } }],
    });
    const stream = await user.sdk.chat.completions.create({
      model: LLAMA,
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [WEATHER],
      stream: true,
    });
    let args = '';
    for await (const chunk of stream)
      args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    expect(args).toBe('{"location":"Paris"}');
  });

  it('answers Claude through InvokeModel and its stream with anthropic_version, billed by the formula', async () => {
    const user = await fixture.user();
    const answer = await user.sdk.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(answer.choices[0]?.message.content).toBe(bedrock.reply);
    expect(bedrock.requests.at(-1)).toMatchObject({
      modelId: 'anthropic.claude-3-5-sonnet-20241022-v2:0',
      operation: 'invoke',
      body: { anthropic_version: 'bedrock-2023-05-31' },
    });
    const stream = await user.sdk.chat.completions.create({
      model: CLAUDE,
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(bedrock.reply);
    expect(bedrock.requests.at(-1)?.operation).toBe('invoke-with-response-stream');
    await expectBilled(user.userId, CLAUDE, 2);
  });

  it('passes Bedrock’s error on with its status and message, without the secret', async () => {
    const user = await fixture.user();
    bedrock.failNext(
      400,
      'ValidationException',
      'Malformed input request: #: extraneous key [foo] is not permitted',
    );
    const error = await user.sdk.chat.completions
      .create({ model: LLAMA, messages: [{ role: 'user', content: 'Hi' }] }, { maxRetries: 0 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as Error).message).toContain('extraneous key [foo] is not permitted');
    expect(JSON.stringify(error)).not.toContain(bedrock.secretAccessKey);
  });

  it('passes the channel test (signed like any request)', async () => {
    const channels = await db()
      .selectFrom('channels')
      .select('id')
      .where('type', '=', CHANNEL_TYPE.aws)
      .execute();
    const response = await fixture.root.get(`/api/channel/test/${channels[0]!.id}?model=${LLAMA}`);
    expect(response.body).toMatchObject({ success: true });
  });
});
