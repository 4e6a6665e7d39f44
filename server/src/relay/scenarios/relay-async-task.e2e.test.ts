import { setTimeout as sleep } from 'node:timers/promises';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTextTokens } from '../metering/token-counter.js';
import { modelRatio } from '../../services/ratio.js';
import { startAliDouble, type AliDouble } from '../../test-support/ali-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { consumeLogs, formulaCost, userCounters } from '../../test-support/relay-helpers.js';
import { startZhipuDouble, type ZhipuDouble } from '../../test-support/zhipu-double.js';

const WANX = 'wanx-v1';
const CHATGLM = 'chatglm_turbo';
const QUOTA = 10_000_000;

/** one-api's image price: trunc(model ratio × group ratio × size factor (1 for DashScope) × 1000) × n. */
const imagePrice = (n: number): number => Math.trunc(modelRatio(WANX, CHANNEL_TYPE.ali, {}).ratio * 1000) * n;

/** A DashScope channel on the double, drawing wanx-v1. */
const aliChannel = (fixture: RelayFixture, ali: AliDouble) =>
  fixture.channel({ name: 'ali', type: CHANNEL_TYPE.ali, key: ali.key, base_url: ali.url, models: WANX });

const noRetries = (user: RelayUser, timeout?: number) =>
  new OpenAI({
    apiKey: user.sdk.apiKey,
    baseURL: user.sdk.baseURL,
    maxRetries: 0,
    ...(timeout ? { timeout } : {}),
  });

const failureOf = async (work: Promise<unknown>) => {
  const error = await work.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
};

/** Waits until `ready` holds (a double saw what the test waits for). */
const until = async (ready: () => boolean, ms = 5000) => {
  for (const start = Date.now(); !ready(); await sleep(20))
    if (Date.now() - start > ms) throw new Error('waited too long');
};

describe('relay: DashScope text-to-image polled as a task, Zhipu v3 stream usage (openai SDK)', () => {
  let fixture: RelayFixture;
  let ali: AliDouble;
  let zhipu: ZhipuDouble;
  beforeAll(async () => {
    ali = await startAliDouble();
    zhipu = await startZhipuDouble();
    fixture = await startRelayFixture('sqlite');
    await aliChannel(fixture, ali);
    await fixture.channel({
      name: 'zhipu',
      type: CHANNEL_TYPE.zhipu,
      key: zhipu.key,
      base_url: zhipu.url,
      models: CHATGLM,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await ali?.close();
    await zhipu?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  /** Once the settlements are written: the user's consumption rows and quota. */
  const billOf = async (userId: number) => {
    await fixture.test.sluice.idle();
    return { logs: await consumeLogs(db(), userId), quota: (await userCounters(db(), userId)).quota };
  };
  const taskPath = (index: number) => ali.images.polls()[index]?.path ?? '';

  describe('Alibaba DashScope text-to-image (type 17)', () => {
    it('creates the task, polls it PENDING → RUNNING → SUCCEEDED, answers its URLs and bills per image', async () => {
      const user = await fixture.user();
      const before = ali.images.polls().length;
      const answer = await user.sdk.images.generate({
        model: WANX,
        prompt: '一只奔跑的猫',
        n: 2,
        size: '1280x720',
      });
      const created = ali.requests.filter((request) => request.path.endsWith('/image-synthesis')).at(-1);
      expect(created?.headers['x-dashscope-async']).toBe('enable');
      expect(created?.headers['authorization']).toBe(`Bearer ${ali.key}`);
      expect(created?.json).toEqual({
        model: WANX,
        input: { prompt: '一只奔跑的猫' },
        parameters: { size: '1280*720', n: 2 },
      });
      const polls = ali.images.polls().slice(before);
      expect(polls).toHaveLength(ali.images.pollsToFinish);
      for (const poll of polls) {
        expect(poll).toMatchObject({ method: 'GET', path: taskPath(before) });
        expect(poll.headers['authorization']).toBe(`Bearer ${ali.key}`);
      }
      const id = taskPath(before).split('/').at(-1) ?? '';
      expect(answer.data?.map((image) => image.url)).toEqual(
        [0, 1].map((index) => `${ali.url}/results/${id}-${index}.png?Expires=1700000000&Signature=c2lnbmVk`),
      );
      expect(answer.created).toBeGreaterThan(1_700_000_000);
      const bill = await billOf(user.userId);
      expect(imagePrice(2)).toBeGreaterThan(0);
      expect(bill.logs).toHaveLength(1);
      expect(bill.logs[0]).toMatchObject({
        model_name: WANX,
        quota: imagePrice(2),
        prompt_tokens: 0,
        completion_tokens: 0,
      });
      expect(bill.quota).toBe(QUOTA - imagePrice(2));
    });

    it('answers b64_json with the images fetched from their URLs, without the key', async () => {
      const user = await fixture.user();
      const fetchedBefore = ali.requests.filter((request) => request.path.startsWith('/results/')).length;
      const answer = await user.sdk.images.generate({
        model: WANX,
        prompt: 'a cat',
        n: 3,
        response_format: 'b64_json',
      });
      expect(answer.data?.map((image) => Buffer.from(image.b64_json ?? '', 'base64'))).toEqual(
        [0, 1, 2].map((index) => ali.images.imageOf(index)),
      );
      expect(answer.data?.every((image) => image.url === undefined)).toBe(true);
      const fetched = ali.requests
        .filter((request) => request.path.startsWith('/results/'))
        .slice(fetchedBefore);
      expect(fetched).toHaveLength(3);
      for (const request of fetched) expect(request.headers['authorization']).toBeUndefined();
      const bill = await billOf(user.userId);
      expect(bill.logs.map((log) => log.quota)).toEqual([imagePrice(3)]);
      expect(bill.quota).toBe(QUOTA - imagePrice(3));
    });

    it('answers a FAILED task as OpenAI’s error with DashScope’s message, without the key, billing nothing', async () => {
      const user = await fixture.user();
      ali.images.failNextTask('DataInspectionFailed', 'Input data may contain inappropriate content.');
      const error = await failureOf(noRetries(user).images.generate({ model: WANX, prompt: 'a cat' }));
      expect(error.status).toBe(400);
      expect(error.message).toContain('Input data may contain inappropriate content.');
      expect(error.error).toMatchObject({ code: 'DataInspectionFailed', type: 'ali_error' });
      expect(JSON.stringify(error.error)).not.toContain(ali.key);
      const bill = await billOf(user.userId);
      expect(bill).toEqual({ logs: [], quota: QUOTA });
    });

    it('answers an HTTP error of a poll at its status, with DashScope’s message', async () => {
      const user = await fixture.user();
      ali.images.pollsToFinish = 3;
      const before = ali.images.polls().length;
      try {
        const failing = failureOf(noRetries(user).images.generate({ model: WANX, prompt: 'a cat' }));
        await until(() => ali.images.polls().length > before);
        ali.failNext(500, 'InternalError.Algo', 'An internal error has occured during execution.');
        const error = await failing;
        expect(error.status).toBe(500);
        expect(error.message).toContain('An internal error has occured during execution.');
      } finally {
        ali.images.pollsToFinish = 2;
      }
      expect((await billOf(user.userId)).logs).toEqual([]);
    });

    it('stops polling when the client leaves, and bills nothing', async () => {
      const user = await fixture.user();
      ali.images.pollsToFinish = Infinity;
      const before = ali.images.polls().length;
      const controller = new AbortController();
      try {
        const leaving = noRetries(user)
          .images.generate({ model: WANX, prompt: 'a cat' }, { signal: controller.signal })
          .catch((caught: unknown) => caught);
        await until(() => ali.images.polls().length >= before + 2);
        controller.abort();
        expect(await leaving).toBeInstanceOf(OpenAI.APIUserAbortError);
        await sleep(100);
        const seen = ali.images.polls().length;
        await sleep(2500);
        expect(ali.images.polls()).toHaveLength(seen);
      } finally {
        ali.images.pollsToFinish = 2;
      }
      expect(await billOf(user.userId)).toEqual({ logs: [], quota: QUOTA });
    });
  });

  describe('Zhipu v3 (chatglm_*, type 16)', () => {
    it('bills a v3 stream by the usage on its finish event’s meta:', async () => {
      const user = await fixture.user();
      zhipu.usage = { prompt_tokens: 123, completion_tokens: 45 };
      const stream = await user.sdk.chat.completions.create({
        model: CHATGLM,
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: '请为我的产品创作一个 slogan' }],
      });
      let text = '';
      const usages: unknown[] = [];
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usages.push(chunk.usage);
      }
      expect(text).toBe(zhipu.reply);
      expect(zhipu.requests.at(-1)?.path).toBe(`/api/paas/v3/model-api/${CHATGLM}/sse-invoke`);
      expect(usages).toEqual([
        { prompt_tokens: 123, completion_tokens: 45, total_tokens: 168, cost: expect.any(Number) as number },
      ]);
      const bill = await billOf(user.userId);
      expect(bill.logs).toHaveLength(1);
      expect(bill.logs[0]).toMatchObject({
        model_name: CHATGLM,
        prompt_tokens: 123,
        completion_tokens: 45,
        quota: formulaCost(CHATGLM, CHANNEL_TYPE.zhipu, 123, 45),
      });
    });

    it('counts a v3 stream locally when its finish event carries no meta:', async () => {
      const user = await fixture.user();
      zhipu.v3Meta = false;
      try {
        const stream = await user.sdk.chat.completions.create({
          model: CHATGLM,
          stream: true,
          messages: [{ role: 'user', content: 'Hi' }],
        });
        for await (const chunk of stream) expect(chunk.usage ?? undefined).toBeUndefined();
      } finally {
        zhipu.v3Meta = true;
      }
      const bill = await billOf(user.userId);
      expect(bill.logs).toHaveLength(1);
      expect(bill.logs[0]?.completion_tokens).toBe(countTextTokens(zhipu.reply, CHATGLM));
      expect(bill.logs[0]?.prompt_tokens).toBeGreaterThan(0);
    });
  });
});

describe('relay: a DashScope task that does not finish within RELAY_TIMEOUT', () => {
  let fixture: RelayFixture;
  let ali: AliDouble;
  beforeAll(async () => {
    ali = await startAliDouble();
    ali.images.pollsToFinish = Infinity;
    fixture = await startRelayFixture('sqlite', { RELAY_TIMEOUT: '1.5' });
    await aliChannel(fixture, ali);
  });
  afterAll(async () => {
    await fixture?.close();
    await ali?.close();
  });

  it('is answered 504 once the timeout passed, polling stopped, nothing billed', async () => {
    const user = await fixture.user();
    const started = Date.now();
    const error = await failureOf(noRetries(user, 20_000).images.generate({ model: WANX, prompt: 'a cat' }));
    const waited = Date.now() - started;
    expect(error.status).toBe(504);
    expect(error.error).toMatchObject({ code: 'task_timeout' });
    expect(waited).toBeGreaterThanOrEqual(1400);
    expect(waited).toBeLessThan(6000);
    const seen = ali.images.polls().length;
    expect(seen).toBeGreaterThan(0);
    await sleep(1500);
    expect(ali.images.polls()).toHaveLength(seen);
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    expect(logs).toEqual([]);
  });
});
