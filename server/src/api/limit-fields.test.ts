import type { Token } from '@sluice/contract/schemas/token';
import type { User } from '@sluice/contract/schemas/user';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { testDialects } from '../test-support/test-databases.js';

const UNSET = {
  rpm_limit: null,
  tpm_limit: null,
  concurrency_limit: null,
  budget_5h: null,
  budget_daily: null,
  budget_weekly: null,
  budget_monthly: null,
};

/** Values a form or a script may send that are not a limit: each refused with a message. */
const BAD_VALUES: readonly [unknown, RegExp][] = [
  [-1, /rpm_limit cannot be negative/],
  [1.5, /rpm_limit must be a whole number/],
  ['60', /rpm_limit must be a whole number/],
  [2_000_000_000_000_000, /rpm_limit is too large/],
];

describe.each(testDialects())('rate limits and budgets through /api on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = apiClient(test.sluice.app);
    await root.login('root', '123456');
  });
  afterAll(() => test?.close());

  const row = (table: 'tokens' | 'users', id: number) =>
    test.sluice.database.db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('creates a token with limits, reads them back, keeps them on an update that omits them', async () => {
    const created = await root.post('/api/token/', {
      name: 'limited',
      rpm_limit: 60,
      tpm_limit: 0,
      concurrency_limit: 3,
      budget_daily: 500_000,
      budget_monthly: 5_000_000_000,
    });
    expect(created.body).toMatchObject({ success: true });
    const token = created.body.data as Token;
    const limits = {
      ...UNSET,
      rpm_limit: 60,
      concurrency_limit: 3,
      budget_daily: 500_000,
      budget_monthly: 5_000_000_000,
    };
    expect(token).toMatchObject(limits);
    expect((await root.get(`/api/token/${token.id}`)).body.data).toMatchObject(limits);
    const stored = await row('tokens', token.id);
    // 0 from a form is "no limit": stored as NULL, as a row one-api wrote has it.
    expect(stored.tpm_limit).toBeNull();
    expect(Number(stored.rpm_limit)).toBe(60);

    expect((await root.put('/api/token/', { id: token.id, name: 'renamed' })).body.success).toBe(true);
    expect((await root.get(`/api/token/${token.id}`)).body.data).toMatchObject({
      name: 'renamed',
      ...limits,
    });

    const cleared = await root.put('/api/token/', {
      id: token.id,
      name: 'renamed',
      rpm_limit: null,
      budget_daily: 0,
      tpm_limit: 1000,
    });
    expect(cleared.body.success).toBe(true);
    expect((await root.get(`/api/token/${token.id}`)).body.data).toMatchObject({
      ...limits,
      rpm_limit: null,
      budget_daily: null,
      tpm_limit: 1000,
    });
  });

  it('gives a token without limits all of them unset', async () => {
    const created = await root.post('/api/token/', { name: 'plain' });
    expect(created.body.data).toMatchObject(UNSET);
  });

  it('refuses a bad limit on a token with {success:false, message} and stores nothing', async () => {
    const before = await test.sluice.database.db.selectFrom('tokens').select('id').execute();
    for (const [value, message] of BAD_VALUES) {
      const response = await root.post('/api/token/', { name: 'bad', rpm_limit: value });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: false, message: expect.stringMatching(message) as string });
    }
    const created = (await root.post('/api/token/', { name: 'good', budget_5h: 10 })).body.data as Token;
    const refused = await root.put('/api/token/', { id: created.id, name: 'good', budget_5h: -3 });
    expect(refused.body).toEqual({
      success: false,
      message: expect.stringMatching(/budget_5h cannot be negative/) as string,
    });
    expect((await row('tokens', created.id)).budget_5h).not.toBeNull();
    expect(await test.sluice.database.db.selectFrom('tokens').select('id').execute()).toHaveLength(
      before.length + 1,
    );
  });

  it('lets an administrator set, read and clear a user’s limits, and refuses bad ones', async () => {
    expect(
      (await root.post('/api/user/', { username: 'limited', password: 'password123' })).body.success,
    ).toBe(true);
    const user = await test.sluice.database.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'limited')
      .executeTakeFirstOrThrow();
    expect((await root.get(`/api/user/${user.id}`)).body.data).toMatchObject(UNSET);

    const limits = {
      rpm_limit: 10,
      tpm_limit: 20_000,
      concurrency_limit: 2,
      budget_5h: 1000,
      budget_weekly: 70_000,
    };
    expect((await root.put('/api/user/', { id: user.id, ...limits })).body).toMatchObject({ success: true });
    expect((await root.get(`/api/user/${user.id}`)).body.data).toMatchObject({ ...UNSET, ...limits });
    // An update of other fields leaves the limits as they are.
    expect((await root.put('/api/user/', { id: user.id, display_name: 'Limited' })).body.success).toBe(true);
    expect((await root.get(`/api/user/${user.id}`)).body.data).toMatchObject({
      display_name: 'Limited',
      ...limits,
    });

    for (const [value, message] of BAD_VALUES)
      expect((await root.put('/api/user/', { id: user.id, rpm_limit: value })).body).toEqual({
        success: false,
        message: expect.stringMatching(message) as string,
      });
    expect(Number((await row('users', user.id)).rpm_limit)).toBe(10);

    expect(
      (await root.put('/api/user/', { id: user.id, rpm_limit: 0, budget_weekly: null })).body.success,
    ).toBe(true);
    const cleared = (await root.get(`/api/user/${user.id}`)).body.data as User;
    expect(cleared).toMatchObject({ ...limits, rpm_limit: null, budget_weekly: null });
  });

  it('validates the limit options, with {success:false, message} for a bad value', async () => {
    const put = (key: string, value: string) => root.put('/api/option/', { key, value });
    const good = '{"vip": {"rpm": 60, "tpm": 100000, "concurrency": 5}, "default": {"rpm": 0}}';
    expect((await put('GroupRateLimits', good)).body).toMatchObject({ success: true });
    expect(test.sluice.services.options.values.GroupRateLimits).toBe(good);
    for (const bad of [
      '[1]',
      '{"vip": {"rpm": -1}}',
      '{"vip": {"rpm": 1.5}}',
      '{"vip": {"rps": 1}}',
      'not json',
    ])
      expect((await put('GroupRateLimits', bad)).body, bad).toEqual({
        success: false,
        message: expect.stringMatching(/^GroupRateLimits must be a JSON object/) as string,
      });
    expect(test.sluice.services.options.values.GroupRateLimits).toBe(good);

    expect((await put('GroupRoutingStrategies', '{"vip": "least_in_flight"}')).body.success).toBe(true);
    for (const [bad, message] of [
      ['[1]', 'GroupRoutingStrategies must be a JSON object mapping groups to strategies'],
      [
        '{"vip": "fastest"}',
        'GroupRoutingStrategies: "vip" must be one of weighted_random, round_robin, least_in_flight, lowest_latency',
      ],
      ['{"": "round_robin"}', 'GroupRoutingStrategies: "" is not a group name (1 to 32 characters)'],
    ] as const)
      expect((await put('GroupRoutingStrategies', bad)).body, bad).toEqual({ success: false, message });
    expect(test.sluice.services.options.values.GroupRoutingStrategies).toBe('{"vip": "least_in_flight"}');

    expect((await put('RateLimitFailClosed', 'true')).body.success).toBe(true);
    expect(test.sluice.services.options.values.RateLimitFailClosed).toBe(true);
    expect((await put('RateLimitFailClosed', 'yes')).body.success).toBe(false);

    expect((await put('BudgetTimeZone', 'Asia/Shanghai')).body.success).toBe(true);
    expect((await put('BudgetTimeZone', 'Mars/Olympus')).body).toEqual({
      success: false,
      message: 'BudgetTimeZone must be a time zone such as UTC or Asia/Shanghai',
    });
    expect((await put('BudgetWindowMode', 'rolling')).body.success).toBe(true);
    expect((await put('BudgetWindowMode', 'weekly')).body).toEqual({
      success: false,
      message: 'BudgetWindowMode must be one of calendar, rolling',
    });
    expect((await put('BudgetWarningPercent', '80')).body.success).toBe(true);
    for (const bad of ['101', '-1', '8.5'])
      expect((await put('BudgetWarningPercent', bad)).body.success, bad).toBe(false);
    expect(test.sluice.services.options.values.BudgetWarningPercent).toBe(80);
  });
});
