import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import {
  channelUsedQuota,
  chatBody,
  consumeLogs,
  gpt4oCost,
  relayPost,
  tokenCounters,
  userCounters,
} from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';

/** The OpenAI double reports 9 prompt and 12 completion tokens, streamed or not. */
const COST = gpt4oCost(9, 12);

describe.each(testDialects())('relay billing on %s', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  let channelId: number;

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture(dialect);
    channelId = await fixture.channel({ name: 'billing', base_url: upstream.url, models: 'gpt-4o' });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  const idle = () => fixture.test.sluice.idle();

  /** One chat through the SDK, streamed or not; resolves once the whole answer has been read. */
  const oneChat = async (user: RelayUser, stream: boolean): Promise<string> => {
    if (!stream) {
      const completion = await user.sdk.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Hello!' }],
      });
      return completion.choices[0]?.message.content ?? '';
    }
    const chunks = await user.sdk.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    let text = '';
    for await (const chunk of chunks) text += chunk.choices[0]?.delta.content ?? '';
    return text;
  };

  it('accounts 100 parallel requests on one limited key exactly: logs, user, key and channel agree', async () => {
    const user = await fixture.user({
      quota: 100_000_000,
      token: { unlimited_quota: false, remain_quota: 50_000_000 },
    });
    const channelBefore = await channelUsedQuota(db(), channelId);
    const texts = await Promise.all(
      Array.from({ length: 100 }, (_, index) => oneChat(user, index % 2 === 0)),
    );
    expect(texts.every((text) => text === upstream.reply)).toBe(true);
    await idle();

    const logs = await consumeLogs(db(), user.userId);
    expect(logs).toHaveLength(100);
    expect(logs.filter((log) => log.is_stream)).toHaveLength(50);
    const sum = logs.reduce((total, log) => total + log.quota, 0);
    expect(sum).toBe(100 * COST);
    expect(await userCounters(db(), user.userId)).toMatchObject({
      quota: 100_000_000 - sum,
      used_quota: sum,
      request_count: 100,
    });
    expect(await tokenCounters(db(), user.tokenId)).toMatchObject({
      remain_quota: 50_000_000 - sum,
      used_quota: sum,
    });
    expect((await channelUsedQuota(db(), channelId)) - channelBefore).toBe(sum);
  });

  it('settles reservations exactly when the key is too small to be trusted (parallel requests)', async () => {
    // remain 100 000 < 100 × the reservation (≈ 1 275): every request reserves, then settles the difference.
    const user = await fixture.user({
      quota: 100_000_000,
      token: { unlimited_quota: false, remain_quota: 100_000 },
    });
    const texts = await Promise.all(Array.from({ length: 30 }, (_, index) => oneChat(user, index % 3 === 0)));
    expect(texts).toHaveLength(30);
    await idle();
    const logs = await consumeLogs(db(), user.userId);
    expect(logs.map((log) => log.quota)).toEqual(Array.from({ length: 30 }, () => COST));
    expect(await tokenCounters(db(), user.tokenId)).toMatchObject({
      remain_quota: 100_000 - 30 * COST,
      used_quota: 30 * COST,
    });
    expect(await userCounters(db(), user.userId)).toMatchObject({
      quota: 100_000_000 - 30 * COST,
      used_quota: 30 * COST,
      request_count: 30,
    });
  });

  it('refuses a user whose quota cannot cover the reservation with 403 and changes nothing', async () => {
    const user = await fixture.user({
      quota: 1_000,
      token: { unlimited_quota: false, remain_quota: 1_000_000 },
    });
    const before = upstream.requests.length;
    const answer = await relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o'));
    expect(answer.status).toBe(403);
    expect(answer.json.error).toMatchObject({ code: 'insufficient_user_quota' });
    expect(answer.json.error?.message).toContain('user quota is not enough');
    await idle();
    expect(upstream.requests.length).toBe(before);
    expect(await userCounters(db(), user.userId)).toMatchObject({
      quota: 1_000,
      used_quota: 0,
      request_count: 0,
    });
    expect(await tokenCounters(db(), user.tokenId)).toMatchObject({ remain_quota: 1_000_000, used_quota: 0 });
    expect(await consumeLogs(db(), user.userId)).toHaveLength(0);
  });

  it('refuses a limited key whose remain cannot cover the reservation with 403 and changes nothing', async () => {
    const user = await fixture.user({
      quota: 1_000_000,
      token: { unlimited_quota: false, remain_quota: 500 },
    });
    const before = upstream.requests.length;
    const answer = await relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o'));
    expect(answer.status).toBe(403);
    expect(answer.json.error?.message).toContain('token quota is not enough');
    await idle();
    expect(upstream.requests.length).toBe(before);
    expect(await userCounters(db(), user.userId)).toMatchObject({
      quota: 1_000_000,
      used_quota: 0,
      request_count: 0,
    });
    expect(await tokenCounters(db(), user.tokenId)).toMatchObject({
      remain_quota: 500,
      used_quota: 0,
      status: 1,
    });
    expect(await consumeLogs(db(), user.userId)).toHaveLength(0);
  });

  it('moves the quota but writes no log row with LogConsumeEnabled=false', async () => {
    const options = fixture.test.sluice.services.options;
    await options.update('LogConsumeEnabled', 'false');
    try {
      const user = await fixture.user({
        quota: 1_000_000,
        token: { unlimited_quota: false, remain_quota: 1_000_000 },
      });
      await oneChat(user, false);
      await oneChat(user, true);
      await idle();
      expect(await userCounters(db(), user.userId)).toMatchObject({
        quota: 1_000_000 - 2 * COST,
        used_quota: 2 * COST,
        request_count: 2,
      });
      expect((await tokenCounters(db(), user.tokenId)).remain_quota).toBe(1_000_000 - 2 * COST);
      expect(await consumeLogs(db(), user.userId)).toHaveLength(0);
    } finally {
      await options.update('LogConsumeEnabled', 'true');
    }
  });
});
