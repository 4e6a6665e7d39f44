import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSluice, type TestSluice } from '../../test-support/test-sluice.js';
import { testDialects } from '../../test-support/test-databases.js';
import { createBilling, type Billing } from './billing.js';
import type { Payer, Settlement } from './settlement-write.js';

const START = 1_000_000;

/** Admission from quota pools, on one instance and two; the cached quota for slices and reminders. */
describe.each(testDialects())('billing: quota pools on %s', (dialect) => {
  let test: TestSluice;
  let billing: Billing;
  let payer: Payer;

  const db = () => test.sluice.database.db;
  const storedQuota = async () =>
    Number(
      (
        await db()
          .selectFrom('users')
          .select('quota')
          .where('id', '=', payer.userId)
          .executeTakeFirstOrThrow()
      ).quota,
    );
  /** Changes the quota behind Sluice's back (no change feed), as another tool writing the database would. */
  const setBehindTheBack = (quota: number) =>
    db().updateTable('users').set({ quota }).where('id', '=', payer.userId).execute();
  const another = () =>
    createBilling({ db: db(), logDb: db(), dialect, changes: test.sluice.services.changes });
  const settlement = (poolId: string | undefined, estimate: number, cost: number): Settlement => ({
    payer,
    username: 'root',
    tokenName: '',
    channelId: 0,
    preQuota: estimate,
    quota: cost,
    reservationId: poolId,
  });

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    const user = await db()
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'root')
      .executeTakeFirstOrThrow();
    payer = { userId: user.id, tokenId: 0, unlimited: true };
  });
  beforeEach(async () => {
    await setBehindTheBack(START);
    await test.sluice.services.changes.emit({ kind: 'user', id: payer.userId });
    billing = another();
  });
  afterAll(async () => {
    await test?.close();
  });

  it('takes a slice from the database once, admits from memory, draws costs from it, gives the rest back', async () => {
    // A slice: 200 estimates, at most a 50th of the quota.
    const first = await billing.admit(payer, 100, START, 0);
    expect(await storedQuota()).toBe(START - 20_000);
    // The next requests are admitted from the pool: no await, nothing written.
    const second = billing.admit(payer, 100, START, 0);
    expect(second).toBe(first);
    expect(await storedQuota()).toBe(START - 20_000);
    await Promise.all([
      billing.settle(settlement(first, 100, 70)),
      billing.settle(settlement(first, 100, 130)),
    ]);
    // The costs are drawn from the pool's row, not from the quota again.
    expect(await storedQuota()).toBe(START - 20_000);
    const row = await db()
      .selectFrom('sluice_reservations')
      .select('quota')
      .where('id', '=', first)
      .executeTakeFirstOrThrow();
    expect(Number(row.quota)).toBe(20_000 - 200);
    await billing.giveBackPools();
    expect(await storedQuota()).toBe(START - 200);
    expect(await db().selectFrom('sluice_reservations').selectAll().execute()).toEqual([]);
  });

  it('gives a failed request’s estimate back to the pool, and a whole pool back when it is idle', async () => {
    const pool = await billing.admit(payer, 500, START, 0);
    await billing.release(payer, 500, pool);
    await billing.giveBackPools();
    expect(await storedQuota()).toBe(START);
  });

  it('refuses what the quota cannot cover, and it costs nothing', async () => {
    await setBehindTheBack(300);
    await expect(Promise.resolve(billing.admit(payer, 400, 300, 0))).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_user_quota',
    });
    expect(await storedQuota()).toBe(300);
    // Just enough is taken when a slice cannot be.
    const pool = await billing.admit(payer, 300, 300, 0);
    expect(await storedQuota()).toBe(0);
    await billing.settle(settlement(pool, 300, 280));
    await billing.giveBackPools();
    expect(await storedQuota()).toBe(20);
  });

  it('leaves another instance only what its pools did not take: no two instances spend the same quota', async () => {
    await setBehindTheBack(1_000);
    const second = another();
    // 1,000 / 50 = 20 per slice: each instance takes what it needs, from the same database row.
    const taken: string[] = [];
    for (let index = 0; index < 5; index += 1) taken.push(await billing.admit(payer, 100, 1_000, 0));
    for (let index = 0; index < 5; index += 1) taken.push(await second.admit(payer, 100, 1_000, 0));
    expect(await storedQuota()).toBe(0);
    await expect(Promise.resolve(second.admit(payer, 100, 0, 0))).rejects.toMatchObject({
      code: 'insufficient_user_quota',
    });
    await expect(Promise.resolve(billing.admit(payer, 100, 0, 0))).rejects.toMatchObject({
      code: 'insufficient_user_quota',
    });
    for (const pool of taken) await billing.release(payer, 100, pool);
    for (const pool of taken) await second.release(payer, 100, pool);
    await billing.giveBackPools();
    await second.giveBackPools();
    expect(await storedQuota()).toBe(1_000);
  });

  it('a limited key is taken from with the user, and given back with it', async () => {
    await db()
      .insertInto('tokens')
      .values({
        user_id: payer.userId,
        key: `pooltest${dialect}`.padEnd(48, 'x'),
        status: 1,
        name: 'limited',
        created_time: 0,
        accessed_time: 0,
        expired_time: -1,
        remain_quota: 10_000,
        unlimited_quota: false,
        used_quota: 0,
        models: '',
        subnet: '',
      })
      .execute();
    const { id: tokenId } = await db()
      .selectFrom('tokens')
      .select('id')
      .where('name', '=', 'limited')
      .executeTakeFirstOrThrow();
    const limited = { ...payer, tokenId, unlimited: false };
    const remain = async () =>
      Number(
        (
          await db()
            .selectFrom('tokens')
            .select('remain_quota')
            .where('id', '=', tokenId)
            .executeTakeFirstOrThrow()
        ).remain_quota,
      );
    const pool = await billing.admit(limited, 100, START, 10_000);
    // The slice is the smaller of the user's and the key's share.
    expect(await remain()).toBe(10_000 - 200);
    await billing.settle({ ...settlement(pool, 100, 90), payer: limited });
    await billing.giveBackPools();
    expect(await remain()).toBe(10_000 - 90);
    expect(await storedQuota()).toBe(START - 90);
  });

  it('reads the quota again as soon as the change feed reports the user changed (a top-up, an edit)', async () => {
    expect(await billing.userQuota(payer.userId)).toBe(START);
    await setBehindTheBack(42);
    expect(await billing.userQuota(payer.userId)).toBe(START);
    await test.sluice.services.changes.emit({ kind: 'user', id: payer.userId });
    expect(await billing.userQuota(payer.userId)).toBe(42);
  });
});
