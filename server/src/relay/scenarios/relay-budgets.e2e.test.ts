import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeLogs, userCounters } from '../../test-support/relay-helpers.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { testDialects } from '../../test-support/test-databases.js';

const MODEL = 'gpt-4o';

describe.each(testDialects())('budgets on the relay (%s)', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;

  const db = () => fixture.test.sluice.database.db;
  /** The user's quota once their quota pools, idle, gave back what they held (what the relay has not spent). */
  const unspent = async (userId: number) => {
    const held = () =>
      db().selectFrom('sluice_reservations').select('id').where('user_id', '=', userId).execute();
    await expect.poll(async () => (await held()).length, { timeout: 15_000, interval: 200 }).toBe(0);
    return (await userCounters(db(), userId)).quota;
  };
  /** What the budget ledger counts for a subject, all buckets. */
  const counted = async (subject: 'u' | 't', id: number) =>
    (
      await db()
        .selectFrom('sluice_budget_usage')
        .select('used')
        .where('subject', '=', subject)
        .where('subject_id', '=', id)
        .execute()
    ).reduce((sum, row) => sum + Number(row.used), 0);

  const stream = async (user: RelayUser) => {
    const response = await fetch(`${fixture.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer sk-${user.key}` },
      body: JSON.stringify({
        model: MODEL,
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hello!' }],
      }),
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  };

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    upstream.chunkDelayMs = 5;
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'budgeted', base_url: upstream.url, models: MODEL });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  it('holds a key’s daily budget under 50 concurrent streamed requests; the logs sum to the quota taken', async () => {
    const budget = 8000;
    const user = await fixture.user({ token: { budget_daily: budget } });
    const before = await unspent(user.userId);
    const answers = await Promise.all(Array.from({ length: 50 }, () => stream(user)));
    await fixture.test.sluice.idle();

    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(admitted.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of admitted) expect(answer.text).toContain('data: [DONE]');
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(JSON.parse(answer.text)).toMatchObject({
        error: { code: 'budget_exceeded', type: 'insufficient_quota' },
      });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const logs = await consumeLogs(db(), user.userId);
    expect(logs).toHaveLength(admitted.length);
    const spent = logs.reduce((sum, row) => sum + row.quota, 0);
    // Each admitted request's estimate (PreConsumedQuota + prompt + max_tokens, priced) covers its cost.
    expect(spent).toBeLessThanOrEqual(budget);
    expect(before - (await unspent(user.userId))).toBe(spent);
    // The window holds what was spent: every estimate replaced by its cost, refusals counted nowhere.
    expect(await counted('t', user.tokenId)).toBe(spent);
  });

  it('refuses on the user’s budget in the client’s own format, at no cost', async () => {
    const user = await fixture.user();
    await db().updateTable('users').set({ budget_5h: 10 }).where('id', '=', user.userId).execute();
    const ask = () =>
      fetch(`${fixture.server.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': `sk-${user.key}`,
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify({
          model: MODEL,
          max_tokens: 64,
          messages: [{ role: 'user', content: 'Hello!' }],
        }),
      });
    // An empty window lets one request through, however large.
    expect((await ask()).status).toBe(200);
    await fixture.test.sluice.idle();
    const before = await userCounters(db(), user.userId);
    const sent = upstream.requests.length;
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    await fixture.test.sluice.idle();
    expect(upstream.requests.length).toBe(sent);
    // Nothing spent (used quota and requests), nothing logged, nothing sent.
    expect(await userCounters(db(), user.userId)).toMatchObject({
      used_quota: before.used_quota,
      request_count: before.request_count,
    });
    expect(await consumeLogs(db(), user.userId)).toHaveLength(1);
  });
});
