import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicDouble, type AnthropicDouble } from '../../test-support/anthropic-double.js';
import { listenHandler, type Listening } from '../../test-support/listen.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { consumeLogs } from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';

const MODEL = 'gpt-4o';
const CLAUDE = 'claude-3-5-sonnet-20241022';
/** A model only the double that reports its own usage.cost serves. */
const PRICED = 'gpt-4o-mini';
const QUOTA_PER_UNIT = 500_000;

/** The usage chunk of a stream's events (the last `data:` with a usage). */
const usageOf = (text: string): Record<string, unknown> | undefined => {
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as { usage?: Record<string, unknown> | null });
  return events.reverse().find((event) => event.usage)?.usage ?? undefined;
};

describe.each(testDialects())('the cost told to the client (%s)', (dialect) => {
  let fixture: RelayFixture;
  let openai: OpenAiDouble;
  let anthropic: AnthropicDouble;
  let priced: Listening;

  const post = (user: RelayUser, body: unknown) =>
    fetch(`${fixture.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer sk-${user.key}` },
      body: JSON.stringify(body),
    });
  const lastLog = async (user: RelayUser) => {
    await fixture.test.sluice.idle();
    const rows = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    return rows.at(-1)!;
  };

  beforeAll(async () => {
    [openai, anthropic] = await Promise.all([startOpenAiDouble(), startAnthropicDouble()]);
    // An OpenAI-compatible upstream that prices its own usage (as OpenRouter does): never Sluice's cost.
    priced = await listenHandler((_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'c1', object: 'chat.completion.chunk', created: 1, model: PRICED };
      const delta = { index: 0, delta: { content: 'Hi there' }, finish_reason: 'stop' };
      response.write(`data: ${JSON.stringify({ ...base, choices: [delta] })}\n\n`);
      const usage = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, cost: 123.45 };
      response.write(`data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n`);
      response.end('data: [DONE]\n\n');
    });
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'openai', base_url: openai.url, models: MODEL });
    await fixture.channel({ name: 'priced', base_url: priced.url, models: PRICED });
    await fixture.channel({
      name: 'claude',
      type: CHANNEL_TYPE.anthropic,
      key: anthropic.key,
      base_url: anthropic.url,
      models: CLAUDE,
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await Promise.all([openai?.close(), anthropic?.close(), priced?.close()]);
  });

  it("tells a limited key's non-stream answer its cost and what is left: the log row's quota", async () => {
    const user = await fixture.user({
      quota: 10_000_000,
      token: { unlimited_quota: false, remain_quota: 1_000_000 },
    });
    const answer = await post(user, { model: MODEL, messages: [{ role: 'user', content: 'Hello!' }] });
    expect(answer.status).toBe(200);
    await answer.json();
    const cost = Number(answer.headers.get('x-sluice-quota-cost'));
    const log = await lastLog(user);
    expect(log.quota).toBeGreaterThan(0);
    expect(cost).toBe(log.quota);
    expect(answer.headers.get('x-sluice-quota-remaining')).toBe(String(1_000_000 - cost));
  });

  it("says 'unlimited' for a key without a quota of its own", async () => {
    const user = await fixture.user();
    const answer = await post(user, { model: MODEL, messages: [{ role: 'user', content: 'Hello!' }] });
    await answer.json();
    expect(Number(answer.headers.get('x-sluice-quota-cost'))).toBe((await lastLog(user)).quota);
    expect(answer.headers.get('x-sluice-quota-remaining')).toBe('unlimited');
  });

  it.each([
    ['passed through', MODEL],
    ['translated', CLAUDE],
  ])('gives a stream that asked for usage usage.cost in dollars (%s)', async (_how, model) => {
    const user = await fixture.user();
    const answer = await post(user, {
      model,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    expect(answer.status).toBe(200);
    const usage = usageOf(await answer.text());
    const log = await lastLog(user);
    expect(log.quota).toBeGreaterThan(0);
    expect(usage?.['cost']).toBeCloseTo(log.quota / QUOTA_PER_UNIT, 12);
    expect(usage?.['total_tokens']).toBe(log.prompt_tokens + log.completion_tokens);
  });

  it("overwrites an upstream's own usage.cost with Sluice's", async () => {
    const user = await fixture.user();
    const answer = await post(user, {
      model: PRICED,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    const usage = usageOf(await answer.text());
    const log = await lastLog(user);
    expect(usage?.['cost']).not.toBe(123.45);
    expect(usage?.['cost']).toBeCloseTo(log.quota / QUOTA_PER_UNIT, 12);
  });

  it('adds no cost to a stream that did not ask for usage', async () => {
    const user = await fixture.user();
    const answer = await post(user, {
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    expect(usageOf(await answer.text())).toBeUndefined();
    expect(answer.headers.get('x-sluice-quota-cost')).toBeNull();
  });
});
