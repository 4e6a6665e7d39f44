import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSluice, type TestSluice } from '../../test-support/test-sluice.js';
import { testDialects } from '../../test-support/test-databases.js';
import { createBilling, type Billing } from './billing.js';

/** The admission check's quota: cached, moved with every move of this instance, dropped on a change. */
describe.each(testDialects())('billing: the cached user quota on %s', (dialect) => {
  let test: TestSluice;
  let billing: Billing;
  let userId: number;
  let tokenId: number;

  const db = () => test.sluice.database.db;
  const storedQuota = async () =>
    (await db().selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirstOrThrow()).quota;
  /** Changes the quota behind Sluice's back (no change feed), as another tool writing the database would. */
  const setBehindTheBack = (quota: number) =>
    db().updateTable('users').set({ quota }).where('id', '=', userId).execute();

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    billing = createBilling({ db: db(), logDb: db(), dialect, changes: test.sluice.services.changes });
    const user = await db()
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'root')
      .executeTakeFirstOrThrow();
    userId = user.id;
    const token = await db()
      .selectFrom('tokens')
      .select('id')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    tokenId = token?.id ?? 0;
    await setBehindTheBack(1_000_000);
  });
  afterAll(async () => {
    await test?.close();
  });

  it('reads the database once, then follows its own reservations, releases and settlements', async () => {
    const payer = { userId, tokenId, unlimited: true };
    expect(await billing.userQuota(userId)).toBe(1_000_000);
    await setBehindTheBack(5);
    // Cached: the direct write is not seen within the freshness bound…
    expect(await billing.userQuota(userId)).toBe(1_000_000);
    await setBehindTheBack(1_000_000);
    // …but every move this instance makes is applied to it, and matches the database.
    const released = await billing.reserve(payer, 100);
    const settled = await billing.reserve(payer, 200);
    expect(await billing.userQuota(userId)).toBe(999_700);
    await billing.release(payer, 100, released);
    expect(await billing.userQuota(userId)).toBe(999_800);
    await billing.settle({
      payer,
      username: 'root',
      tokenName: '',
      channelId: 0,
      preQuota: 200,
      quota: 1_234,
      reservationId: settled,
    });
    expect(await billing.userQuota(userId)).toBe(1_000_000 - 1_234);
    expect(await storedQuota()).toBe(1_000_000 - 1_234);
  });

  it('counts what answered requests owe at once, before their settlements are written', async () => {
    await setBehindTheBack(1_000_000);
    await test.sluice.services.changes.emit({ kind: 'user', id: userId });
    expect(await billing.userQuota(userId)).toBe(1_000_000);
    const payer = { userId, tokenId, unlimited: true };
    const settlement = { payer, username: 'root', tokenName: '', channelId: 0 };
    // Two answered requests: one not reserved for (cost 700), one that reserved 300 and cost 500.
    const first = billing.settle({ ...settlement, preQuota: 0, quota: 700 });
    const reservationId = await billing.reserve(payer, 300);
    const second = billing.settle({ ...settlement, preQuota: 300, quota: 500, reservationId });
    // Nothing is written yet (the batch gathers for a few milliseconds), but admission sees it all.
    expect(await storedQuota()).toBe(1_000_000 - 300);
    expect(billing.freshQuota(userId)).toBe(1_000_000 - 700 - 500);
    expect(await billing.userQuota(userId)).toBe(1_000_000 - 700 - 500);
    await Promise.all([first, second]);
    expect(await storedQuota()).toBe(1_000_000 - 1_200);
    expect(await billing.userQuota(userId)).toBe(1_000_000 - 1_200);
  });

  it('reads again as soon as the change feed reports the user changed (a top-up, an edit)', async () => {
    expect(await billing.userQuota(userId)).toBe(await storedQuota());
    await setBehindTheBack(42);
    await test.sluice.services.changes.emit({ kind: 'user', id: userId });
    expect(await billing.userQuota(userId)).toBe(42);
    await setBehindTheBack(43);
    await test.sluice.services.changes.emit({ kind: 'user' });
    expect(await billing.userQuota(userId)).toBe(43);
  });

  it('refuses a reservation the database cannot cover, whatever the cache says', async () => {
    await setBehindTheBack(1_000_000);
    await test.sluice.services.changes.emit({ kind: 'user', id: userId });
    expect(await billing.userQuota(userId)).toBe(1_000_000);
    await setBehindTheBack(10);
    await expect(billing.reserve({ userId, tokenId, unlimited: true }, 100)).rejects.toMatchObject({
      code: 'insufficient_user_quota',
    });
    expect(await storedQuota()).toBe(10);
  });
});
