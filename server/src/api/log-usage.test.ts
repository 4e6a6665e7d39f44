import type { DashboardRow, Usage } from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketStart } from '../db/day-bucket.js';
import type { ApiClient } from '../test-support/api-client.js';
import { insertLogs, signInNewUser, signInRoot, type SignedInUser } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const DAY = 86_400;
/** 2024-01-01T00:00:00Z */
const D0 = Date.UTC(2024, 0, 1) / 1000;
const RANGE = `start_timestamp=${D0}&end_timestamp=${D0 + 3 * DAY - 1}`;
const zero = { requests: 0, prompt_tokens: 0, completion_tokens: 0, quota: 0 };

const usageOf = (response: { body: { success?: boolean; message?: string; data?: unknown } }): Usage => {
  expect(response.body.message).toBe('');
  return response.body.data as Usage;
};

describe.each(testDialects())('usage and dashboard on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let alice: SignedInUser;
  let bob: SignedInUser;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    alice = await signInNewUser(test, 'alice');
    bob = await signInNewUser(test, 'bob');
    const a = { user_id: alice.id, username: 'alice', type: LOG_TYPE.consume };
    await insertLogs(test.sluice.services.deps.logDb, [
      {
        ...a,
        created_at: D0 + 23 * 3600 + 1800,
        model_name: 'gpt-4o',
        quota: 10,
        prompt_tokens: 1,
        completion_tokens: 2,
      },
      {
        ...a,
        created_at: D0 + DAY + 3600,
        model_name: 'gpt-4o',
        quota: 20,
        prompt_tokens: 3,
        completion_tokens: 4,
      },
      {
        ...a,
        created_at: D0 + DAY + 7200,
        model_name: 'claude-3',
        quota: 5,
        prompt_tokens: 1,
        completion_tokens: 1,
      },
      { ...a, created_at: D0 + 3 * 3600, type: LOG_TYPE.topup, quota: 500, content: 'top-up' },
      { ...a, created_at: D0 + 3 * DAY + 60, model_name: 'gpt-4o', quota: 999 },
      {
        user_id: bob.id,
        username: 'bob',
        created_at: D0 + 2 * 3600,
        type: LOG_TYPE.consume,
        model_name: 'gpt-4o',
        channel_id: 7,
        quota: 1000,
        prompt_tokens: 100,
        completion_tokens: 100,
      },
    ]);
  });
  afterAll(() => test?.close());

  it('sums consumption per day and model over a range, in UTC by default', async () => {
    expect(usageOf(await alice.client.get(`/api/log/self/usage?${RANGE}`))).toEqual({
      days: [
        { day: '2024-01-01', requests: 1, prompt_tokens: 1, completion_tokens: 2, quota: 10 },
        { day: '2024-01-02', requests: 2, prompt_tokens: 4, completion_tokens: 5, quota: 25 },
        { day: '2024-01-03', ...zero },
      ],
      models: [
        { model_name: 'gpt-4o', requests: 2, prompt_tokens: 4, completion_tokens: 6, quota: 30 },
        { model_name: 'claude-3', requests: 1, prompt_tokens: 1, completion_tokens: 1, quota: 5 },
      ],
    });
  });

  it("cuts days at the caller's midnight", async () => {
    const east = usageOf(await alice.client.get(`/api/log/self/usage?${RANGE}&tz_offset=60`));
    expect(east.days).toEqual([
      { day: '2024-01-01', ...zero },
      { day: '2024-01-02', requests: 3, prompt_tokens: 5, completion_tokens: 7, quota: 35 },
      { day: '2024-01-03', ...zero },
      { day: '2024-01-04', ...zero },
    ]);
    const west = usageOf(await alice.client.get(`/api/log/self/usage?${RANGE}&tz_offset=-120`));
    expect(west.days).toEqual([
      { day: '2023-12-31', ...zero },
      { day: '2024-01-01', requests: 2, prompt_tokens: 4, completion_tokens: 6, quota: 30 },
      { day: '2024-01-02', requests: 1, prompt_tokens: 1, completion_tokens: 1, quota: 5 },
      { day: '2024-01-03', ...zero },
    ]);
    const farWest = usageOf(await alice.client.get(`/api/log/self/usage?${RANGE}&tz_offset=-840`));
    expect(farWest.days.find((day) => day.day === '2024-01-01')).toEqual({
      day: '2024-01-01',
      requests: 3,
      prompt_tokens: 5,
      completion_tokens: 7,
      quota: 35,
    });
    expect(east.models).toEqual(west.models);
  });

  it('covers every user, one user or one channel for an admin', async () => {
    const all = usageOf(await root.get(`/api/log/usage?${RANGE}`));
    expect(all.days[0]).toEqual({
      day: '2024-01-01',
      requests: 2,
      prompt_tokens: 101,
      completion_tokens: 102,
      quota: 1010,
    });
    expect(all.models.map((model) => [model.model_name, model.requests, model.quota])).toEqual([
      ['gpt-4o', 3, 1030],
      ['claude-3', 1, 5],
    ]);
    const bobOnly = usageOf(await root.get(`/api/log/usage/?${RANGE}&username=bob`));
    expect(bobOnly.models).toEqual([
      { model_name: 'gpt-4o', requests: 1, prompt_tokens: 100, completion_tokens: 100, quota: 1000 },
    ]);
    expect(usageOf(await root.get(`/api/log/usage?${RANGE}&channel=7`))).toEqual(bobOnly);
    expect(usageOf(await root.get(`/api/log/usage?${RANGE}&channel=8`)).models).toEqual([]);
  });

  it("never shows a user another user's usage", async () => {
    const own = usageOf(await bob.client.get(`/api/log/self/usage?${RANGE}&username=alice&channel=0`));
    expect(own.models).toEqual([
      { model_name: 'gpt-4o', requests: 1, prompt_tokens: 100, completion_tokens: 100, quota: 1000 },
    ]);
    expect(own.days.reduce((sum, day) => sum + day.requests, 0)).toBe(1);
  });

  it('defaults to the last 7 days', async () => {
    const carol = await signInNewUser(test, 'carol');
    const now = Math.floor(Date.now() / 1000);
    await insertLogs(test.sluice.services.deps.logDb, [
      {
        user_id: carol.id,
        username: 'carol',
        created_at: now - 3600,
        type: LOG_TYPE.consume,
        model_name: 'm',
        quota: 3,
      },
      {
        user_id: carol.id,
        username: 'carol',
        created_at: now - 10 * DAY,
        type: LOG_TYPE.consume,
        model_name: 'm',
        quota: 4,
      },
    ]);
    const usage = usageOf(await carol.client.get('/api/log/self/usage'));
    expect(usage.days).toHaveLength(7);
    expect(usage.days.at(-1)?.day).toBe(new Date(now * 1000).toISOString().slice(0, 10));
    expect(usage.models).toEqual([
      { model_name: 'm', requests: 1, prompt_tokens: 0, completion_tokens: 0, quota: 3 },
    ]);
    const tokyo = usageOf(await carol.client.get('/api/log/self/usage?tz_offset=540'));
    expect(tokyo.days.at(-1)?.day).toBe(new Date((now + 540 * 60) * 1000).toISOString().slice(0, 10));
  });

  it('refuses a bad range or offset with a clear message', async () => {
    const refused = async (path: string, message: string) => {
      const response = await alice.client.get(path);
      expect(response.body, path).toEqual({ success: false, message });
    };
    await refused('/api/log/self/usage?tz_offset=841', 'invalid parameter: tz_offset: must be at most 840');
    await refused(
      '/api/log/self/usage?tz_offset=-841',
      'invalid parameter: tz_offset: must be at least -840',
    );
    await refused(
      '/api/log/self/usage?tz_offset=east',
      'invalid parameter: tz_offset: must be a whole number',
    );
    await refused(
      '/api/log/self/usage?start_timestamp=abc',
      'invalid parameter: start_timestamp: must be a whole number',
    );
    await refused(
      `/api/log/self/usage?start_timestamp=${D0 + DAY}&end_timestamp=${D0}`,
      'invalid parameter: start_timestamp must not be after end_timestamp',
    );
    await refused(
      `/api/log/self/usage?start_timestamp=${D0}&end_timestamp=${D0 + 367 * DAY}`,
      'invalid parameter: the time range must be at most 366 days',
    );
    const refusedAdmin = await root.get(`/api/log/usage?username=${'x'.repeat(192)}`);
    expect(refusedAdmin.body).toEqual({
      success: false,
      message: 'invalid parameter: username: must be at most 191 characters',
    });
  });

  it('floors day buckets below zero on this database too', async () => {
    const db = test.sluice.services.deps.logDb;
    await insertLogs(db, [{ user_id: 0, created_at: -100, type: LOG_TYPE.manage }]);
    const row = await db
      .selectFrom('logs')
      .select(bucketStart('created_at', 0, DAY).as('day'))
      .where('created_at', '=', -100)
      .executeTakeFirstOrThrow();
    expect(Number(row.day)).toBe(-DAY);
    const shifted = await db
      .selectFrom('logs')
      .select(bucketStart('created_at', 200, DAY).as('day'))
      .where('created_at', '=', -100)
      .executeTakeFirstOrThrow();
    expect(Number(shifted.day)).toBe(0);
  });

  it("answers one-api's dashboard for the last 7 days", async () => {
    const dana = await signInNewUser(test, 'dana');
    const now = Math.floor(Date.now() / 1000);
    const today = now - (now % DAY);
    const d = { user_id: dana.id, username: 'dana', type: LOG_TYPE.consume };
    await insertLogs(test.sluice.services.deps.logDb, [
      {
        ...d,
        created_at: today - DAY + 10,
        model_name: 'gpt-4o',
        quota: 5,
        prompt_tokens: 1,
        completion_tokens: 2,
      },
      {
        ...d,
        created_at: today - DAY + 20,
        model_name: 'gpt-4o',
        quota: 6,
        prompt_tokens: 3,
        completion_tokens: 4,
      },
      {
        ...d,
        created_at: today - DAY + 30,
        model_name: 'claude-3',
        quota: 1,
        prompt_tokens: 1,
        completion_tokens: 1,
      },
      { ...d, created_at: today + 1, model_name: 'gpt-4o', quota: 2, prompt_tokens: 0, completion_tokens: 1 },
      { ...d, created_at: today - 9 * DAY, model_name: 'gpt-4o', quota: 100 },
      { ...d, created_at: today - DAY, type: LOG_TYPE.topup, quota: 1000 },
      {
        user_id: bob.id,
        username: 'bob',
        created_at: today - DAY,
        type: LOG_TYPE.consume,
        model_name: 'gpt-4o',
        quota: 50,
      },
    ]);
    const response = await dana.client.get('/api/user/dashboard');
    expect(response.body.success).toBe(true);
    const day = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
    expect(response.body.data as DashboardRow[]).toEqual([
      {
        Day: day(today - DAY),
        ModelName: 'claude-3',
        RequestCount: 1,
        Quota: 1,
        PromptTokens: 1,
        CompletionTokens: 1,
      },
      {
        Day: day(today - DAY),
        ModelName: 'gpt-4o',
        RequestCount: 2,
        Quota: 11,
        PromptTokens: 4,
        CompletionTokens: 6,
      },
      {
        Day: day(today),
        ModelName: 'gpt-4o',
        RequestCount: 1,
        Quota: 2,
        PromptTokens: 0,
        CompletionTokens: 1,
      },
    ]);
    expect((await alice.client.get('/api/user/dashboard/')).body).toEqual({
      success: true,
      message: '',
      data: [],
    });
  });
});
