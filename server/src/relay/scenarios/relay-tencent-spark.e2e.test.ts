import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionRatio, modelRatio } from '../../services/ratio.js';
import { startSparkDouble, type SparkDouble } from '../../test-support/spark-double.js';
import { startTencentDouble, type TencentDouble } from '../../test-support/tencent-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

const HUNYUAN = 'hunyuan-standard';
const SPARK = 'SparkDesk-v3.5';

/** one-api's formula on the provider's usage: ⌈(prompt + completion × completion ratio) × model ratio⌉. */
const costOf = (model: string, type: number, prompt: number, completion: number): number =>
  Math.ceil((prompt + completion * completionRatio(model, type, {})) * modelRatio(model, type, {}).ratio);

describe('relay: Tencent Hunyuan and iFlytek Spark channels through the openai SDK', () => {
  let fixture: RelayFixture;
  let tencent: TencentDouble;
  let spark: SparkDouble;
  beforeAll(async () => {
    tencent = await startTencentDouble();
    spark = await startSparkDouble();
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({
      name: 'hunyuan',
      type: CHANNEL_TYPE.tencent,
      key: tencent.key,
      base_url: tencent.url,
      models: `${HUNYUAN},hunyuan-embedding`,
    });
    await fixture.channel({
      name: 'spark',
      type: CHANNEL_TYPE.xunfei,
      key: spark.key,
      base_url: spark.url,
      models: `${SPARK},Spark-Lite`,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await tencent?.close();
    await spark?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  /** After the request settles: its one log row, and the user paid exactly its quota. */
  const billed = async (userId: number) => {
    await fixture.test.sluice.idle();
    const logs = await db()
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', LOG_TYPE.consume)
      .execute();
    expect(logs).toHaveLength(1);
    const user = await db()
      .selectFrom('users')
      .select('quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(user.quota).toBe(10_000_000 - logs[0]!.quota);
    return logs[0]!;
  };

  describe('Tencent Hunyuan (type 23)', () => {
    it('answers a chat signed with TC3-HMAC-SHA256, billed by the formula on Hunyuan’s usage', async () => {
      const user = await fixture.user();
      tencent.usage = { PromptTokens: 913, CompletionTokens: 1407 };
      const completion = await user.sdk.chat.completions.create({
        model: HUNYUAN,
        messages: [{ role: 'user', content: '你好' }],
        temperature: 0.3,
      });
      expect(completion.choices[0]?.message.content).toBe(tencent.reply);
      expect(completion.usage).toEqual({ prompt_tokens: 913, completion_tokens: 1407, total_tokens: 2320 });
      const sent = tencent.requests.at(-1)!;
      expect(sent.path).toBe('/');
      expect(sent.headers['x-tc-action']).toBe('ChatCompletions');
      expect(sent.headers['authorization']).toContain(`Credential=${tencent.secretId}/`);
      expect(sent.json).toEqual({
        Model: HUNYUAN,
        Messages: [{ Role: 'user', Content: '你好' }],
        Stream: false,
        Temperature: 0.3,
      });
      const log = await billed(user.userId);
      expect(log).toMatchObject({ model_name: HUNYUAN, prompt_tokens: 913, completion_tokens: 1407 });
      expect(log.quota).toBe(costOf(HUNYUAN, CHANNEL_TYPE.tencent, 913, 1407));
    });

    it('streams Choices[].Delta as chunks, with the last running Usage billed', async () => {
      const user = await fixture.user();
      tencent.usage = { PromptTokens: 611, CompletionTokens: 1203 };
      const stream = await user.sdk.chat.completions.create({
        model: HUNYUAN,
        messages: [{ role: 'user', content: '你好' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let finish: string | null = null;
      let usage: unknown;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe(tencent.reply);
      expect(finish).toBe('stop');
      expect(usage).toEqual({
        prompt_tokens: 611,
        completion_tokens: 1203,
        total_tokens: 1814,
        cost: expect.any(Number) as number,
      });
      expect(tencent.requests.at(-1)?.json?.['Stream']).toBe(true);
      const log = await billed(user.userId);
      expect(log.quota).toBe(costOf(HUNYUAN, CHANNEL_TYPE.tencent, 611, 1203));
    });

    it('answers a tool call', async () => {
      const user = await fixture.user();
      const completion = await user.sdk.chat.completions.create({
        model: HUNYUAN,
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
      });
      expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
      expect(completion.choices[0]?.message.tool_calls?.[0]).toMatchObject({
        id: 'call_hy_1',
        function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
      });
    });

    it('embeds through GetEmbedding', async () => {
      const user = await fixture.user();
      tencent.usage = { PromptTokens: 5, CompletionTokens: 0 };
      const answer = await user.sdk.embeddings.create({ model: 'hunyuan-embedding', input: 'hello' });
      expect(answer.data[0]?.embedding).toEqual(tencent.vector);
      expect(answer.usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
      expect(tencent.requests.at(-1)?.headers['x-tc-action']).toBe('GetEmbedding');
    });

    it('answers Hunyuan’s error (HTTP 200, Response.Error) with its meaning, the secret never quoted', async () => {
      const user = await fixture.user();
      tencent.failNext('InvalidParameter', `The parameter Messages is invalid for ${tencent.secretId}.`);
      const error = await user.sdk.chat.completions
        .create({ model: HUNYUAN, messages: [{ role: 'user', content: 'hi' }] }, { maxRetries: 0 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(400);
      expect((error as APIError).message).toContain('The parameter Messages is invalid for [redacted].');
      expect(JSON.stringify((error as APIError).error)).not.toContain(tencent.secretKey);
      // A rate limit sent with 200 fails the attempt as a 429 from any provider does (one-api's
      // message for the last channel's 429; the next channel is tried when RetryTimes allows).
      tencent.failNext('LimitExceeded', `Rate limit reached for ${tencent.secretId}.`);
      const limited = await user.sdk.chat.completions
        .create({ model: HUNYUAN, messages: [{ role: 'user', content: 'hi' }] }, { maxRetries: 0 })
        .catch((caught: unknown) => caught);
      expect((limited as APIError).status).toBe(429);
      expect(JSON.stringify((limited as APIError).error)).not.toContain(tencent.secretKey);
    });

    it('fails a stream over Hunyuan’s JSON error with the provider’s message', async () => {
      const user = await fixture.user();
      tencent.failNext('InternalError', 'Internal error.');
      const error = await user.sdk.chat.completions
        .create(
          { model: HUNYUAN, messages: [{ role: 'user', content: 'hi' }], stream: true },
          { maxRetries: 0 },
        )
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).message).toContain('Internal error.');
    });
  });

  describe('iFlytek Spark (type 18, WebSocket)', () => {
    it('answers a chat over the signed WebSocket, its frames gathered, billed by the formula', async () => {
      const user = await fixture.user();
      spark.usage = { prompt_tokens: 733, completion_tokens: 1291 };
      const completion = await user.sdk.chat.completions.create({
        model: SPARK,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: '你好' },
        ],
        temperature: 0.5,
        max_tokens: 512,
      });
      expect(completion.choices[0]?.message.content).toBe(spark.reply);
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(completion.usage).toEqual({ prompt_tokens: 733, completion_tokens: 1291, total_tokens: 2024 });
      const sent = spark.requests.at(-1)!;
      expect(sent.url.split('?')[0]).toBe('/v3.5/chat');
      expect(sent.frame).toEqual({
        header: { app_id: spark.appId },
        parameter: { chat: { domain: 'generalv3.5', temperature: 0.5, max_tokens: 512 } },
        payload: {
          message: {
            text: [
              { role: 'system', content: 'Be brief.' },
              { role: 'user', content: '你好' },
            ],
          },
        },
      });
      const log = await billed(user.userId);
      expect(log).toMatchObject({ model_name: SPARK, prompt_tokens: 733, completion_tokens: 1291 });
      expect(log.quota).toBe(costOf(SPARK, CHANNEL_TYPE.xunfei, 733, 1291));
    });

    it('streams the frames as chunks as they come, the last frame’s usage billed', async () => {
      const user = await fixture.user();
      spark.usage = { prompt_tokens: 411, completion_tokens: 977 };
      const stream = await user.sdk.chat.completions.create({
        model: 'Spark-Lite',
        messages: [{ role: 'user', content: '你好' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let chunks = 0;
      let finish: string | null = null;
      let usage: unknown;
      for await (const chunk of stream) {
        chunks += 1;
        text += chunk.choices[0]?.delta.content ?? '';
        finish = chunk.choices[0]?.finish_reason ?? finish;
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe(spark.reply);
      expect(chunks).toBeGreaterThan(3);
      expect(finish).toBe('stop');
      expect(usage).toEqual({
        prompt_tokens: 411,
        completion_tokens: 977,
        total_tokens: 1388,
        cost: expect.any(Number) as number,
      });
      expect(spark.requests.at(-1)?.url.split('?')[0]).toBe('/v1.1/chat');
      const log = await billed(user.userId);
      expect(log.quota).toBe(costOf('Spark-Lite', CHANNEL_TYPE.xunfei, 411, 977));
    });

    it('answers Spark’s error frame with its code and message, non-stream and stream', async () => {
      const user = await fixture.user();
      spark.failNext(
        11200,
        'AppIdNoAuthError:(11200)授权错误：该appId没有相关功能的授权 或者 业务量超过限制',
      );
      const error = await user.sdk.chat.completions
        .create({ model: SPARK, messages: [{ role: 'user', content: 'hi' }] }, { maxRetries: 0 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(APIError);
      expect((error as APIError).status).toBe(401);
      expect((error as APIError).message).toContain('AppIdNoAuthError');
      spark.failNext(10013, '输入内容审核不通过');
      const streamed = await user.sdk.chat.completions
        .create(
          { model: SPARK, messages: [{ role: 'user', content: 'hi' }], stream: true },
          { maxRetries: 0 },
        )
        .catch((caught: unknown) => caught);
      expect(streamed).toBeInstanceOf(APIError);
      expect((streamed as APIError).message).toContain('输入内容审核不通过');
      expect(JSON.stringify((streamed as APIError).error)).not.toContain(spark.apiSecret);
    });
  });
});
