import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketOf } from '../db/day-bucket.js';
import { sqlNumber } from '../db/sql-number.js';
import { nowSeconds } from '../lib/time.js';
import type { ApiClient } from '../test-support/api-client.js';
import { insertLogs, signInNewUser, signInRoot, type SignedInUser } from '../test-support/log-fixtures.js';
import { expectRollupsMatchLogs, randomTraffic, seededRandom } from '../test-support/log-traffic.js';
import {
  dashboardTruth,
  listTruth,
  statTruth,
  usageTruth,
  type TruthFilters,
} from '../test-support/log-truth.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { createRollupJob } from './log-rollup-job.js';
import { readWatermark } from './log-rollup-writes.js';

const DAY = 86_400;
const HOUR = 3600;

const query = (filters: Record<string, string | number | undefined>) =>
  Object.entries(filters)
    .filter(([, value]) => value !== undefined && value !== 0 && value !== '')
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
    .join('&');

const dataOf = (response: { body: { message?: string; data?: unknown } }): unknown => {
  expect(response.body.message).toBe('');
  return response.body.data;
};

describe.each(testDialects())('the console’s log reads from roll-ups on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  let users: SignedInUser[];
  const now = nowSeconds();
  const random = seededRandom(20_261_128);
  const hour = (time: number) => bucketOf(time, 0, HOUR);

  /** Windows a console sends: none, the Logs page's default, arbitrary seconds, open ends, inside and across hours, the far past. */
  const windows: readonly { start?: number; end?: number }[] = [
    {},
    { start: now - 7 * DAY, end: now + HOUR },
    { start: now - 6 * DAY - 1234, end: now - 2 * DAY + 999 },
    { start: now - 3 * DAY + 17 },
    { end: now - 5 * DAY + 4321 },
    { start: hour(now - 2 * DAY) + 100, end: hour(now - 2 * DAY) + 1100 },
    { start: hour(now - DAY) + 3000, end: hour(now - DAY) + 4200 },
    { start: now - 401 * DAY, end: now - 399 * DAY },
    { start: hour(now - 3 * DAY), end: hour(now - DAY) },
    { start: bucketOf(now - 5 * DAY, 0, DAY), end: bucketOf(now - 2 * DAY, 0, DAY) - 1 },
    { start: hour(now - 4 * DAY) - 1, end: hour(now - 4 * DAY) + 1 },
  ];

  const deps = () => test.sluice.services.deps;
  const logDb = () => deps().logDb;
  const jobOf = (chunkRows: number, services = test.sluice.services) =>
    createRollupJob(
      { readDb: services.deps.logReadDb, writeDb: services.deps.logMaintenanceDb, dialect },
      { chunkRows, gapWaitMs: 0, restRatio: 0 },
    );
  /** Where a caught-up job leaves the watermark: the newest id (MySQL: the one before, see the job). */
  const caughtUpId = async () => {
    const newest = await logDb().selectFrom('logs').select('id').orderBy('id', 'desc').limit(2).execute();
    return sqlNumber(newest[dialect === 'mysql' ? 1 : 0]?.id);
  };

  const expectStats = async (label: string) => {
    const admin: TruthFilters[] = [
      {},
      { username: 'alice' },
      { token_name: 'default' },
      { model_name: 'gpt-4o' },
      { channel: 2 },
      { client_format: 'anthropic' },
      { username: 'bob', channel: 3 },
      { token_name: 'alice-key-1', model_name: 'claude-3' },
      { username: 'ghost' },
    ];
    for (const window of windows) {
      for (const filters of admin) {
        const asked = { ...filters, start_timestamp: window.start, end_timestamp: window.end };
        const answer = dataOf(await root.get(`/api/log/stat?${query(asked)}`));
        expect(answer, `${label}: /api/log/stat?${query(asked)}`).toEqual(
          await statTruth(logDb(), { ...filters, ...window }),
        );
      }
      const alice = users[0]!;
      for (const filters of [
        {},
        { token_name: 'default' },
        { model_name: 'claude-3', client_format: 'openai' },
      ]) {
        const asked = { ...filters, start_timestamp: window.start, end_timestamp: window.end };
        const answer = dataOf(await alice.client.get(`/api/log/self/stat?${query(asked)}`));
        expect(answer, `${label}: /api/log/self/stat?${query(asked)}`).toEqual(
          await statTruth(logDb(), { ...filters, ...window, user_id: alice.id }),
        );
      }
    }
  };

  const expectUsage = async (label: string) => {
    const bob = users[1]!;
    for (const tz of [0, 480, 330, -300]) {
      const shift = tz * 60;
      const defaultStart = bucketOf(now, shift, DAY) - 6 * DAY - shift;
      const ranges = [
        { asked: {}, start: defaultStart, end: now },
        { asked: { start_timestamp: now - 9 * DAY, end_timestamp: now }, start: now - 9 * DAY, end: now },
      ];
      for (const range of ranges) {
        for (const filters of [{}, { username: 'alice' }, { channel: 2 }, { username: 'bob', channel: 1 }]) {
          const asked = { ...range.asked, ...filters, tz_offset: tz, end_timestamp: now };
          const answer = dataOf(await root.get(`/api/log/usage?${query(asked)}`));
          expect(answer, `${label}: /api/log/usage?${query(asked)}`).toEqual(
            await usageTruth(logDb(), { ...filters, start: range.start, end: range.end }, tz),
          );
        }
      }
      const asked = { start_timestamp: now - 9 * DAY, end_timestamp: now, tz_offset: tz };
      expect(
        dataOf(await bob.client.get(`/api/log/self/usage?${query(asked)}`)),
        `${label}: own usage ${tz}`,
      ).toEqual(await usageTruth(logDb(), { user_id: bob.id, start: now - 9 * DAY, end: now }, tz));
    }
    for (const user of [users[0]!, users[2]!])
      expect(dataOf(await user.client.get('/api/user/dashboard')), `${label}: dashboard`).toEqual(
        await dashboardTruth(logDb(), user.id, now),
      );
  };

  const expectLists = async (label: string) => {
    const cases: { filters: TruthFilters; pages: number[] }[] = [
      { filters: { start: now - 3 * DAY, end: now - 2 * DAY }, pages: [0, 1, 7] },
      { filters: { start: now - 7 * DAY, end: now + HOUR }, pages: [0, 3] },
      { filters: { username: 'alice', start: now - 5 * DAY, end: now - DAY }, pages: [0, 2] },
      { filters: { type: LOG_TYPE.topup }, pages: [0] },
      { filters: { type: LOG_TYPE.topup, start: now - 8 * DAY, end: now - 4 * DAY }, pages: [0] },
      { filters: { channel: 2, token_name: 'default' }, pages: [1] },
    ];
    for (const { filters, pages } of cases)
      for (const page of pages) {
        const asked = {
          ...filters,
          start_timestamp: filters.start,
          end_timestamp: filters.end,
          start: undefined,
          end: undefined,
          p: page,
        };
        const rows = dataOf(await root.get(`/api/log/?${query(asked)}`)) as { id: number }[];
        expect(
          rows.map((row) => row.id),
          `${label}: /api/log/?${query(asked)}`,
        ).toEqual(await listTruth(logDb(), filters, page));
      }
    const alice = users[0]!;
    for (const page of [0, 1]) {
      const asked = { start_timestamp: now - 6 * DAY, end_timestamp: now - 4 * DAY, p: page };
      const rows = dataOf(await alice.client.get(`/api/log/self/?${query(asked)}`)) as { id: number }[];
      expect(
        rows.map((row) => row.id),
        `${label}: own list page ${page}`,
      ).toEqual(
        await listTruth(logDb(), { user_id: alice.id, start: now - 6 * DAY, end: now - 4 * DAY }, page),
      );
    }
  };

  const expectReadsMatch = async (label: string) => {
    await expectStats(label);
    await expectUsage(label);
    await expectLists(label);
  };

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
    users = [
      await signInNewUser(test, 'alice'),
      await signInNewUser(test, 'bob'),
      await signInNewUser(test, 'carol'),
    ];
  }, 60_000);

  afterAll(() => test?.close());

  it('answers every stat, usage, dashboard and windowed list as the raw rows do, before, while and after the job folds them in', async () => {
    await insertLogs(logDb(), randomTraffic(random, users, 1500, now));
    await expectReadsMatch('nothing folded');
    const job = jobOf(97);
    for (let step = 0; step < 5; step += 1) expect(await job.step()).toBeGreaterThan(0);
    await expectRollupsMatchLogs(logDb());
    await expectReadsMatch('partly folded');
    await job.catchUp();
    expect(await readWatermark(logDb())).toBe(await caughtUpId());
    await expectRollupsMatchLogs(logDb());
    await expectReadsMatch('all folded');
    await insertLogs(logDb(), randomTraffic(random, users, 300, now));
    await expectReadsMatch('new rows above the watermark');
    await job.catchUp();
    await expectRollupsMatchLogs(logDb());
  }, 300_000);

  it('takes what a cleanup deletes out of the roll-ups, whether the job had folded it in or not', async () => {
    const before = await logDb()
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('created_at', '<', now - 4 * DAY + 1234)
      .executeTakeFirstOrThrow();
    const response = await root.delete(`/api/log?target_timestamp=${now - 4 * DAY + 1234}`);
    expect(response.body).toEqual({ success: true, message: '', data: sqlNumber(before.n) });
    await expectRollupsMatchLogs(logDb());
    await expectReadsMatch('after a cleanup');
    // Rows above the watermark when the cleanup runs: deleted without touching the roll-ups.
    await insertLogs(logDb(), randomTraffic(random, users, 400, now));
    const job = jobOf(61);
    await job.step();
    await job.step();
    await root.delete(`/api/log?target_timestamp=${now - 2 * DAY - 777}`);
    await expectRollupsMatchLogs(logDb());
    await job.catchUp();
    await expectRollupsMatchLogs(logDb());
    await expectReadsMatch('after a cleanup with the job behind');
  }, 300_000);

  it('is kept current by the instance itself, every second once its timers run', async () => {
    await insertLogs(logDb(), randomTraffic(random, users, 200, now));
    test.sluice.startTimers();
    const target = await caughtUpId();
    for (let waited = 0; waited < 100 && (await readWatermark(logDb())) < target; waited += 1)
      await new Promise((done) => setTimeout(done, 100));
    expect(await readWatermark(logDb())).toBe(target);
    await expectRollupsMatchLogs(logDb());
  }, 60_000);

  it('never counts a row twice when two instances run the job at once', async () => {
    const second = await test.boot();
    await insertLogs(logDb(), randomTraffic(random, users, 1200, now));
    const jobs = [jobOf(53), jobOf(41, second.services), jobOf(67), jobOf(29, second.services)];
    for (let round = 0; round < 50 && (await readWatermark(logDb())) < (await caughtUpId()); round += 1)
      await Promise.all(jobs.map((job) => job.catchUp()));
    expect(await readWatermark(logDb())).toBe(await caughtUpId());
    await expectRollupsMatchLogs(logDb());
    await expectStats('two instances');
  }, 300_000);
});
