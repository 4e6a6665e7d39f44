import type { Token } from '@sluice/contract/schemas/token';
import type { User } from '@sluice/contract/schemas/user';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../test-support/relay-fixture.js';
import { consumeLogs } from '../test-support/relay-helpers.js';
import { testDialects } from '../test-support/test-databases.js';

const MODEL = 'gpt-4o';

describe.each(testDialects())('budget usage in the console and at /v1/dashboard/key on %s', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  let token: Token;
  let spent: number;

  const chat = (key: string) =>
    fetch(`${fixture.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer sk-${key}` },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hello!' }] }),
    });

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'budgeted', base_url: upstream.url, models: MODEL });
    const created = await fixture.root.post('/api/token/', {
      name: 'budgeted',
      unlimited_quota: false,
      remain_quota: 1_000_000,
      budget_daily: 500_000,
      budget_5h: 200_000,
      rpm_limit: 60,
    });
    token = created.body.data as Token;
    await fixture.root.put('/api/user/', { id: 1, budget_monthly: 9_000_000 });
    expect((await chat(token.key)).status).toBe(200);
    expect((await chat(token.key)).status).toBe(200);
    await fixture.test.sluice.idle();
    spent = (await consumeLogs(fixture.test.sluice.database.db, 1)).reduce((sum, row) => sum + row.quota, 0);
    expect(spent).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  it('shows each key’s windows in the token list and the token, as spent', async () => {
    const listed = (await fixture.root.get('/api/token/')).body.data as Token[];
    const budgeted = listed.find((one) => one.id === token.id);
    expect(budgeted?.budget_usage).toEqual([
      { window: '5h', limit: 200_000, used: spent, resets_at: null },
      { window: 'daily', limit: 500_000, used: spent, resets_at: expect.any(Number) as number },
    ]);
    const [daily] = (budgeted?.budget_usage ?? []).filter((window) => window.window === 'daily');
    // Calendar days in UTC: the next midnight.
    expect((daily?.resets_at ?? 0) % 86_400).toBe(0);
    const one = (await fixture.root.get(`/api/token/${token.id}`)).body.data as Token;
    expect(one.budget_usage).toEqual(budgeted?.budget_usage);
    // A key without a budget has none.
    const plain = (await fixture.root.post('/api/token/', { name: 'plain' })).body.data as Token;
    expect(
      ((await fixture.root.get(`/api/token/${plain.id}`)).body.data as Token).budget_usage,
    ).toBeUndefined();
  });

  it('shows the user’s windows to the user and in the user editor', async () => {
    const self = (await fixture.root.get('/api/user/self')).body.data as User;
    const edited = (await fixture.root.get('/api/user/1')).body.data as User;
    const expected = [
      { window: 'monthly', limit: 9_000_000, used: spent, resets_at: expect.any(Number) as number },
    ];
    expect(self.budget_usage).toEqual(expected);
    expect(edited.budget_usage).toEqual(expected);
  });

  it('tells a key its quota, limits, budgets and windows at GET /v1/dashboard/key', async () => {
    const answer = await fetch(`${fixture.server.url}/v1/dashboard/key`, {
      headers: { authorization: `Bearer sk-${token.key}` },
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: 'key',
      name: 'budgeted',
      expires_at: null,
      unlimited_quota: false,
      remaining_quota: 1_000_000 - spent,
      used_quota: spent,
      quota_per_unit: 500_000,
      limits: { rpm: 60, tpm: null, concurrency: null },
      budgets: [
        { window: '5h', limit: 200_000, used: spent, resets_at: null },
        { window: 'daily', limit: 500_000, used: spent },
      ],
      user: {
        limits: { rpm: null, tpm: null, concurrency: null },
        budgets: [{ window: 'monthly', used: spent }],
      },
    });
    const refused = await fetch(`${fixture.server.url}/v1/dashboard/key`, {
      headers: { authorization: 'Bearer sk-nosuchkey' },
    });
    expect(refused.status).toBe(401);
  });
});
