import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../../test-support/test-sluice.js';
import { createBilling, type Billing } from './billing.js';
import type { Payer } from './settlement-write.js';

const START = 1_000_000_000;
/** Requests in flight on each instance, and the pace of each: 2 × 50 × 20/s = 2,000 answers a second. */
const IN_FLIGHT = 50;
const PER_CLIENT_PER_SECOND = 20;
const LOAD_MS = 3_000;
/** Measured after a warm-up: the pools' first slices, the connection pool's first connections. */
const WARM_UP_MS = 1_000;
/** 40 users, each admitted from its pool on each instance. */
const USERS = 40;

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * The billing lag under a sustained load of 2,000 answers a second on two instances sharing one
 * database (more than a 2-core machine's relay serves): each request is admitted from its payer's
 * pool, answers, and settles; the lag is the time from an answer's end to its settlement's commit
 * (the metric `sluice_billing_lag_seconds`).
 */
describe.each(testDialects())('the billing lag under load on two instances, on %s', (dialect) => {
  let test: TestSluice;
  const payers: Payer[] = [];

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    const db = test.sluice.database.db;
    for (let index = 0; index < USERS; index += 1) {
      await db
        .insertInto('users')
        .values({
          username: `lag-${index}`,
          password: 'x',
          display_name: '',
          role: 1,
          status: 1,
          quota: START,
          used_quota: 0,
          request_count: 0,
          group: 'default',
        })
        .execute();
      const { id } = await db
        .selectFrom('users')
        .select('id')
        .where('username', '=', `lag-${index}`)
        .executeTakeFirstOrThrow();
      payers.push({ userId: id, tokenId: 0, unlimited: true });
    }
  });
  afterAll(async () => {
    await test?.close();
  });

  it('commits 99 % of settlements within a second of their answer, and each once', async () => {
    const db = test.sluice.database.db;
    const lags: number[] = [];
    const instances: Billing[] = [0, 1].map(() =>
      createBilling({
        db,
        logDb: db,
        dialect,
        changes: test.sluice.services.changes,
        lag: (seconds) => {
          if (performance.now() - seconds * 1000 >= measuredFrom) lags.push(seconds);
        },
      }),
    );
    const settled: Promise<void>[] = [];
    let answered = 0;
    const measuredFrom = performance.now() + WARM_UP_MS;
    const until = measuredFrom + LOAD_MS;
    let measured = 0;
    const client = async (billing: Billing, index: number) => {
      const payer = payers[index % USERS] as Payer;
      while (performance.now() < until) {
        const started = performance.now();
        const taken = billing.admit(payer, 100, START, 0);
        const reservationId = typeof taken === 'string' ? taken : await taken;
        await sleep(1000 / PER_CLIENT_PER_SECOND - (performance.now() - started));
        answered += 1;
        if (performance.now() >= measuredFrom) measured += 1;
        settled.push(
          billing.settle({
            payer,
            username: 'lag',
            tokenName: '',
            channelId: 0,
            preQuota: 100,
            quota: 37,
            reservationId,
            log: {
              model: 'gpt-4o',
              promptTokens: 10,
              completionTokens: 5,
              content: 'model ratio 2.50',
              requestId: `lag-${index}-${answered}`,
              elapsedMs: 2,
              stream: false,
              systemPromptReset: false,
            },
          }),
        );
      }
    };
    await Promise.all(
      instances.flatMap((billing, instance) =>
        Array.from({ length: IN_FLIGHT }, (_, index) => client(billing, instance * IN_FLIGHT + index)),
      ),
    );
    const pendingAtStop = instances.reduce((sum, billing) => sum + billing.backlog(), 0);
    await Promise.all(settled);
    for (const billing of instances) await billing.giveBackPools();
    const sorted = [...lags].sort((left, right) => left - right);
    const ms = (seconds: number) => `${Math.round(seconds * 1000)} ms`;
    console.log(
      `[billing lag on ${dialect}] ${measured} answered in ${LOAD_MS / 1000} s after a ${WARM_UP_MS / 1000} s ` +
        `warm-up on two instances (${Math.round(measured / (LOAD_MS / 1000))}/s), ` +
        `${pendingAtStop} unwritten when the load stopped; ` +
        `lag p50 ${ms(percentile(sorted, 50))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1) ?? 0)}`,
    );
    // Every settlement answered after the warm-up told its lag (give or take those at the boundary).
    expect(Math.abs(lags.length - measured)).toBeLessThanOrEqual(2 * IN_FLIGHT);
    expect(percentile(sorted, 99)).toBeLessThanOrEqual(1);
    // Every settlement written once: the books balance, nothing stays reserved.
    const users = await db
      .selectFrom('users')
      .select((eb) => [eb.fn.sum<number>('quota').as('quota'), eb.fn.countAll<number>().as('count')])
      .where('username', 'like', 'lag-%')
      .executeTakeFirstOrThrow();
    const logged = await db
      .selectFrom('logs')
      .select((eb) => eb.fn.countAll<number>().as('rows'))
      .where('type', '=', LOG_TYPE.consume)
      .where('username', '=', 'lag')
      .executeTakeFirstOrThrow();
    expect(Number(logged.rows)).toBe(answered);
    expect(USERS * START - Number(users.quota)).toBe(37 * answered);
    expect(await db.selectFrom('sluice_reservations').selectAll().execute()).toEqual([]);
  });
});
