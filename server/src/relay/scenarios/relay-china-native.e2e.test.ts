import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { LOG_TYPE } from '@sluice/contract/statuses';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completionRatio, modelRatio } from '../../services/ratio.js';
import { startAliDouble, type AliDouble } from '../../test-support/ali-double.js';
import { startBaiduDouble, type BaiduDouble } from '../../test-support/baidu-double.js';
import { startZhipuDouble, type ZhipuDouble } from '../../test-support/zhipu-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

const ERNIE = 'ERNIE-4.0-8K';
const GLM = 'glm-4';
const QWEN = 'qwen-turbo';

/** The price one-api's formula gives a usage: ceil((prompt + completion × completion ratio) × model ratio). */
const formula = (model: string, type: number, prompt: number, completion: number): number =>
  Math.ceil(
    Math.round(
      (prompt + completion * completionRatio(model, type, {})) * modelRatio(model, type, {}).ratio * 1e6,
    ) / 1e6,
  );

const collect = async (stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) => {
  let text = '';
  let finish: string | null = null;
  const usages: OpenAI.Completions.CompletionUsage[] = [];
  for await (const chunk of stream) {
    if (chunk.usage) usages.push(chunk.usage);
    const choice = chunk.choices[0];
    text += choice?.delta.content ?? '';
    finish = choice?.finish_reason ?? finish;
  }
  return { text, finish, usages };
};

describe('relay: Baidu, Zhipu and Alibaba native channels through the openai SDK', () => {
  let fixture: RelayFixture;
  let baidu: BaiduDouble;
  let zhipu: ZhipuDouble;
  let ali: AliDouble;
  beforeAll(async () => {
    baidu = await startBaiduDouble();
    zhipu = await startZhipuDouble();
    ali = await startAliDouble();
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({
      name: 'baidu',
      type: CHANNEL_TYPE.baidu,
      key: baidu.key,
      base_url: baidu.url,
      models: `${ERNIE},Embedding-V1`,
    });
    // A second Baidu channel below the first: where a failed attempt goes next.
    await fixture.channel({
      name: 'baidu-backup',
      type: CHANNEL_TYPE.baidu,
      key: baidu.key,
      base_url: baidu.url,
      models: ERNIE,
      priority: -1,
    });
    await fixture.channel({
      name: 'zhipu',
      type: CHANNEL_TYPE.zhipu,
      key: zhipu.key,
      base_url: zhipu.url,
      models: `${GLM},embedding-3`,
    });
    await fixture.channel({
      name: 'ali',
      type: CHANNEL_TYPE.ali,
      key: ali.key,
      base_url: ali.url,
      models: `${QWEN},text-embedding-v1`,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await baidu?.close();
    await zhipu?.close();
    await ali?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  /** After the requests settle: a log row per request with the provider's usage, priced by the formula. */
  const expectBilled = async (
    userId: number,
    model: string,
    type: number,
    prompt: number,
    completion: number,
    calls = 1,
  ) => {
    await fixture.test.sluice.idle();
    const logs = await db()
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', LOG_TYPE.consume)
      .execute();
    const cost = formula(model, type, prompt, completion);
    expect(cost).toBeGreaterThan(0);
    expect(logs).toHaveLength(calls);
    for (const log of logs)
      expect(log).toMatchObject({
        model_name: model,
        prompt_tokens: prompt,
        completion_tokens: completion,
        quota: cost,
      });
    const user = await db()
      .selectFrom('users')
      .select('quota')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    expect(user.quota).toBe(10_000_000 - calls * cost);
  };

  describe('Baidu Wenxin (type 15)', () => {
    it('fetches one access token for 20 concurrent requests on a cold channel, and bills each', async () => {
      const user = await fixture.user();
      expect(baidu.tokenFetches.value).toBe(0);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          user.sdk.chat.completions.create({
            model: ERNIE,
            messages: [{ role: 'user', content: '介绍一下北京' }],
          }),
        ),
      );
      expect(baidu.tokenFetches.value).toBe(1);
      for (const answer of answers) {
        expect(answer.choices[0]?.message.content).toBe(baidu.reply);
        expect(answer.usage).toEqual({ prompt_tokens: 5, completion_tokens: 11, total_tokens: 16 });
      }
      const sent = baidu.requests.filter((request) => request.path.includes('/wenxinworkshop/'));
      expect(sent).toHaveLength(20);
      expect(sent[0]?.path).toBe('/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro');
      expect(sent[0]?.json).toEqual({ messages: [{ role: 'user', content: '介绍一下北京' }] });
      await expectBilled(user.userId, ERNIE, CHANNEL_TYPE.baidu, 5, 11, 20);
    });

    it('streams Wenxin’s events as chunks with the usage, and bills it', async () => {
      const user = await fixture.user();
      const result = await collect(
        await user.sdk.chat.completions.create({
          model: ERNIE,
          stream: true,
          stream_options: { include_usage: true },
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Hi' },
          ],
        }),
      );
      expect(result.text).toBe(baidu.reply);
      expect(result.finish).toBe('stop');
      expect(result.usages).toEqual([
        { prompt_tokens: 5, completion_tokens: 11, total_tokens: 16, cost: expect.any(Number) as number },
      ]);
      expect(baidu.requests.at(-1)?.json).toMatchObject({ system: 'Be brief.', stream: true });
      expect(baidu.tokenFetches.value).toBe(1);
      await expectBilled(user.userId, ERNIE, CHANNEL_TYPE.baidu, 5, 11);
    });

    it('answers embeddings from the model’s embeddings endpoint', async () => {
      const user = await fixture.user();
      const answer = await user.sdk.embeddings.create({ model: 'Embedding-V1', input: ['你好', '世界'] });
      expect(answer.data.map((item) => item.embedding)).toEqual([
        baidu.vector.map(Math.fround),
        baidu.vector.map(Math.fround),
      ]);
      expect(baidu.requests.at(-1)?.path).toBe(
        '/rpc/2.0/ai_custom/v1/wenxinworkshop/embeddings/embedding-v1',
      );
      await expectBilled(user.userId, 'Embedding-V1', CHANNEL_TYPE.baidu, 8, 0);
    });

    it('tries the next channel after a Wenxin error sent with 200 that is worth retrying (a rate limit)', async () => {
      const user = await fixture.user({});
      const before = baidu.requests.length;
      baidu.failNext(18, 'Open api qps request limit reached');
      await fixture.test.sluice.services.options.update('RetryTimes', '1');
      const answer = await user.sdk.chat.completions
        .create({ model: ERNIE, messages: [{ role: 'user', content: 'hi' }] })
        .finally(() => fixture.test.sluice.services.options.update('RetryTimes', '0'));
      expect(answer.choices[0]?.message.content).toBe(baidu.reply);
      expect(
        baidu.requests.slice(before).filter((request) => request.path.includes('/wenxinworkshop/')),
      ).toHaveLength(2);
    });

    it('answers Wenxin’s error (sent with 200) as OpenAI’s, without the token', async () => {
      const user = await fixture.user({});
      baidu.failNext(336003, 'the first message must be from the user');
      const sdk = new OpenAI({ apiKey: user.sdk.apiKey, baseURL: user.sdk.baseURL, maxRetries: 0 });
      const error = await sdk.chat.completions
        .create({ model: ERNIE, messages: [{ role: 'user', content: 'hi' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain(
        'the first message must be from the user',
      );
      expect(JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error)).not.toContain(
        baidu.issued.value,
      );
      // An error that quotes the access token the call carried (a proxy echoing the URL): redacted.
      expect(baidu.issued.value).not.toBe('');
      baidu.failNext(336003, `bad request ?access_token=${baidu.issued.value}`);
      const quoted = await sdk.chat.completions
        .create({ model: ERNIE, messages: [{ role: 'user', content: 'hi' }] })
        .catch((caught: unknown) => caught);
      expect((quoted as InstanceType<typeof OpenAI.APIError>).message).toContain('?access_token=[redacted]');
    });
  });
  describe('Zhipu (type 16)', () => {
    it('answers a glm chat with its JWT as the bearer, and bills the usage', async () => {
      const user = await fixture.user();
      const answer = await user.sdk.chat.completions.create({
        model: GLM,
        messages: [{ role: 'user', content: '请为我的产品创作一个 slogan' }],
      });
      expect(answer.choices[0]?.message.content).toBe(zhipu.reply);
      expect(answer.usage).toEqual({ prompt_tokens: 31, completion_tokens: 9, total_tokens: 40 });
      expect(zhipu.requests.at(-1)?.path).toBe('/api/paas/v4/chat/completions');
      await expectBilled(user.userId, GLM, CHANNEL_TYPE.zhipu, 31, 9);
    });

    it('streams v4 chunks with the usage, and bills it', async () => {
      const user = await fixture.user();
      const result = await collect(
        await user.sdk.chat.completions.create({
          model: GLM,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      );
      expect(result.text).toBe(zhipu.reply);
      expect(result.finish).toBe('stop');
      expect(result.usages).toEqual([
        { prompt_tokens: 31, completion_tokens: 9, total_tokens: 40, cost: expect.any(Number) as number },
      ]);
      await expectBilled(user.userId, GLM, CHANNEL_TYPE.zhipu, 31, 9);
    });

    it('answers embeddings', async () => {
      const user = await fixture.user();
      const answer = await user.sdk.embeddings.create({ model: 'embedding-3', input: '你好' });
      expect(answer.data[0]?.embedding).toEqual(zhipu.vector);
      await expectBilled(user.userId, 'embedding-3', CHANNEL_TYPE.zhipu, 3, 0);
    });

    it('answers Zhipu’s error at its status, without the JWT', async () => {
      const user = await fixture.user();
      zhipu.failNext(400, '1261', 'Prompt 超长');
      const sdk = new OpenAI({ apiKey: user.sdk.apiKey, baseURL: user.sdk.baseURL, maxRetries: 0 });
      const error = await sdk.chat.completions
        .create({ model: GLM, messages: [{ role: 'user', content: 'hi' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('Prompt 超长');
      const jwt = String(zhipu.requests.at(-1)?.headers['authorization']).replace('Bearer ', '');
      expect(JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error)).not.toContain(jwt);
    });
  });
  describe('Alibaba DashScope (type 17)', () => {
    it('answers a chat through text-generation, and bills the usage', async () => {
      const user = await fixture.user();
      const answer = await user.sdk.chat.completions.create({
        model: QWEN,
        messages: [{ role: 'user', content: '你是谁？' }],
      });
      expect(answer.choices[0]?.message.content).toBe(ali.reply);
      expect(answer.usage).toEqual({ prompt_tokens: 10, completion_tokens: 8, total_tokens: 18 });
      expect(ali.requests.at(-1)?.json).toMatchObject({
        model: QWEN,
        parameters: { result_format: 'message' },
      });
      await expectBilled(user.userId, QWEN, CHANNEL_TYPE.ali, 10, 8);
    });

    it('streams incremental output with the usage, and bills it', async () => {
      const user = await fixture.user();
      const result = await collect(
        await user.sdk.chat.completions.create({
          model: QWEN,
          stream: true,
          stream_options: { include_usage: true },
          messages: [{ role: 'user', content: 'Hi' }],
        }),
      );
      expect(result.text).toBe(ali.reply);
      expect(result.finish).toBe('stop');
      expect(result.usages).toEqual([
        { prompt_tokens: 10, completion_tokens: 8, total_tokens: 18, cost: expect.any(Number) as number },
      ]);
      await expectBilled(user.userId, QWEN, CHANNEL_TYPE.ali, 10, 8);
    });

    it('answers embeddings', async () => {
      const user = await fixture.user();
      const answer = await user.sdk.embeddings.create({ model: 'text-embedding-v1', input: '风急天高' });
      expect(answer.data[0]?.embedding).toEqual(ali.vector);
      await expectBilled(user.userId, 'text-embedding-v1', CHANNEL_TYPE.ali, 5, 0);
    });

    it('answers DashScope’s error at its status', async () => {
      const user = await fixture.user();
      ali.failNext(400, 'InvalidParameter', 'Range of input length should be [1, 6000]');
      const sdk = new OpenAI({ apiKey: user.sdk.apiKey, baseURL: user.sdk.baseURL, maxRetries: 0 });
      const error = await sdk.chat.completions
        .create({ model: QWEN, messages: [{ role: 'user', content: 'hi' }] })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
      expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('Range of input length');
      expect(JSON.stringify((error as InstanceType<typeof OpenAI.APIError>).error)).not.toContain(ali.key);
    });
  });
});
