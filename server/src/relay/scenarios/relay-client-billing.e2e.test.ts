import Anthropic from '@anthropic-ai/sdk';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';
import {
  channelUsedQuota,
  consumeLogs,
  gpt4oCost,
  tokenCounters,
  userCounters,
} from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';

const CLAUDE = 'claude-3-5-sonnet-20241022';

describe.each(testDialects())('Anthropic clients billed exactly on %s', (dialect) => {
  let fixture: RelayFixture;
  let openai: OpenAiDouble;
  let anthropic: AnthropicDouble;
  let openAiChannel: number;
  let anthropicChannel: number;

  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([startOpenAiDouble(), startAnthropicDouble()]);
    fixture = await startRelayFixture(dialect);
    openAiChannel = await fixture.channel({ name: 'openai', base_url: openai.url, models: 'gpt-4o' });
    anthropicChannel = await fixture.channel({
      name: 'claude',
      type: CHANNEL_TYPE.anthropic,
      key: anthropic.key,
      base_url: anthropic.url,
      models: CLAUDE,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await Promise.all([openai?.close(), anthropic?.close()]);
  });

  it('accounts 50 parallel streamed /v1/messages on one limited key: logs, user, key and channels agree', async () => {
    const db = fixture.test.sluice.database.db;
    const user = await fixture.user({
      quota: 100_000_000,
      token: { unlimited_quota: false, remain_quota: 50_000_000 },
    });
    const sdk = new Anthropic({ apiKey: `sk-${user.key}`, baseURL: fixture.server.url, maxRetries: 0 });
    const before = {
      openai: await channelUsedQuota(db, openAiChannel),
      anthropic: await channelUsedQuota(db, anthropicChannel),
    };
    // Half translated to the OpenAI channel, half passed through to the Anthropic one.
    const messages = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        sdk.messages
          .stream({
            model: index % 2 === 0 ? 'gpt-4o' : CLAUDE,
            max_tokens: 100,
            messages: [{ role: 'user', content: `Hello ${index}` }],
          })
          .finalMessage(),
      ),
    );
    expect(messages.filter((message) => message.model === 'gpt-4o')).toHaveLength(25);
    await fixture.test.sluice.idle();

    const logs = await consumeLogs(db, user.userId);
    expect(logs).toHaveLength(50);
    expect(logs.every((log) => log.is_stream)).toBe(true);
    const translated = logs.filter((log) => log.model_name === 'gpt-4o');
    const native = logs.filter((log) => log.model_name === CLAUDE);
    expect(translated.map((log) => log.quota)).toEqual(Array.from({ length: 25 }, () => gpt4oCost(9, 12)));
    expect(native.map((log) => [log.prompt_tokens, log.completion_tokens])).toEqual(
      Array.from({ length: 25 }, () => [25, 15]),
    );
    const sum = logs.reduce((total, log) => total + log.quota, 0);
    expect(await userCounters(db, user.userId)).toMatchObject({
      quota: 100_000_000 - sum,
      used_quota: sum,
      request_count: 50,
    });
    expect(await tokenCounters(db, user.tokenId)).toMatchObject({
      remain_quota: 50_000_000 - sum,
      used_quota: sum,
    });
    const translatedSum = translated.reduce((total, log) => total + log.quota, 0);
    expect((await channelUsedQuota(db, openAiChannel)) - before.openai).toBe(translatedSum);
    expect((await channelUsedQuota(db, anthropicChannel)) - before.anthropic).toBe(sum - translatedSum);
  });
});
