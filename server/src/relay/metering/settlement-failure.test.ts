import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Dialect } from '../../db/dsn.js';
import type { Tables } from '../../db/tables.js';
import { generateTokenKey } from '../../lib/keys.js';
import { nowSeconds } from '../../lib/time.js';
import { bootWith, startTestSluice, type TestSluice } from '../../test-support/test-sluice.js';
import { testDialects } from '../../test-support/test-databases.js';
import { randomUUID } from 'node:crypto';
import { memoryJournal } from './billing-journal.js';
import { createSettlementBatcher, SettlementsNotWritten } from './settlement-batch.js';
import type { Settlement } from './settlement-write.js';

/** A cost the database refuses (a trigger stands for a value out of the column's range). */
const REFUSED = 1_000_000_000;

/** A real trigger on `users` that refuses an update raising used_quota by REFUSED or more. */
const refuseHugeCosts = async (db: Kysely<Tables>, dialect: Dialect) => {
  if (dialect === 'sqlite')
    await sql`CREATE TRIGGER refuse_huge BEFORE UPDATE ON users
      WHEN NEW.used_quota - OLD.used_quota >= ${sql.lit(REFUSED)}
      BEGIN SELECT RAISE(ABORT, 'cost out of range'); END`.execute(db);
  if (dialect === 'postgres') {
    await sql`CREATE OR REPLACE FUNCTION refuse_huge() RETURNS trigger AS $$
      BEGIN
        IF NEW.used_quota - OLD.used_quota >= ${sql.lit(REFUSED)} THEN RAISE EXCEPTION 'cost out of range'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`.execute(db);
    await sql`CREATE TRIGGER refuse_huge BEFORE UPDATE ON users FOR EACH ROW EXECUTE FUNCTION refuse_huge()`.execute(
      db,
    );
  }
  if (dialect === 'mysql')
    await sql`CREATE TRIGGER refuse_huge BEFORE UPDATE ON users FOR EACH ROW
      BEGIN
        IF NEW.used_quota - OLD.used_quota >= ${sql.lit(REFUSED)} THEN
          SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cost out of range';
        END IF;
      END`.execute(db);
};

describe.each(testDialects())('a settlement batch the database refuses, on %s', (dialect) => {
  const batcherOf = (database: Kysely<Tables>) => ({
    db: database,
    logDb: database,
    dialect,
    journal: memoryJournal(randomUUID()),
    windowMs: 5,
    committed: () => undefined,
  });
  let test: TestSluice;
  let userId: number;
  let tokenId: number;
  const db = () => test.sluice.database.db;

  const settlement = (requestId: string, preQuota: number, quota: number): Settlement => ({
    payer: { userId, tokenId, unlimited: false },
    username: 'payer',
    tokenName: 'key',
    channelId: 0,
    preQuota,
    quota,
    log: {
      model: 'gpt-4o',
      promptTokens: 1,
      completionTokens: 1,
      content: 'model ratio 1.00',
      requestId,
      elapsedMs: 5,
      stream: false,
      systemPromptReset: false,
    },
  });
  const balances = async () => ({
    user: await db()
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow(),
    token: await db()
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow(),
  });
  const logRows = () =>
    db()
      .selectFrom('logs')
      .select(['request_id', 'quota', 'content'])
      .where('type', '=', LOG_TYPE.consume)
      .orderBy('request_id')
      .execute();

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    userId = (
      await db().selectFrom('users').select('id').where('username', '=', 'root').executeTakeFirstOrThrow()
    ).id;
    await db()
      .insertInto('tokens')
      .values({
        user_id: userId,
        key: generateTokenKey(),
        status: 1,
        name: 'key',
        created_time: nowSeconds(),
        accessed_time: nowSeconds(),
        expired_time: -1,
        remain_quota: 0,
        unlimited_quota: false,
        used_quota: 0,
        models: '',
        subnet: '',
      })
      .execute();
    tokenId = (
      await db().selectFrom('tokens').select('id').where('name', '=', 'key').executeTakeFirstOrThrow()
    ).id;
    await refuseHugeCosts(db(), dialect);
  });
  afterAll(async () => {
    await test?.close();
  });
  beforeEach(async () => {
    await db().deleteFrom('logs').execute();
    // Balances as they stand after admission reserved 100 for each of the requests below.
    await db()
      .updateTable('users')
      .set({ quota: 10_000, used_quota: 0, request_count: 0 })
      .where('id', '=', userId)
      .execute();
    await db()
      .updateTable('tokens')
      .set({ remain_quota: 10_000, used_quota: 0 })
      .where('id', '=', tokenId)
      .execute();
  });

  it('writes the others alone, and charges the refused one its reservation with a log row that says so', async () => {
    const moves: number[] = [];
    const settle = createSettlementBatcher({
      ...batcherOf(db()),
      committed: (userMoves) => moves.push(userMoves.get(userId) ?? 0),
    });
    const settled = [
      settle(settlement('a-good', 100, 70)),
      settle(settlement('b-refused', 100, REFUSED)),
      settle(settlement('c-good', 100, 250)),
    ];
    // One batch, one promise: it resolves, since every settlement was written one way or the other.
    expect(new Set(settled).size).toBe(1);
    await Promise.all(settled);

    expect(await logRows()).toEqual([
      { request_id: 'a-good', quota: 70, content: 'model ratio 1.00' },
      {
        request_id: 'b-refused',
        quota: 100,
        content: `model ratio 1.00; the real cost (${REFUSED}) could not be written: settled at the reservation`,
      },
      { request_id: 'c-good', quota: 250, content: 'model ratio 1.00' },
    ]);
    const { user, token } = await balances();
    // a: 100 reserved, 70 cost → 30 back; b: its reservation kept; c: 150 more than reserved.
    expect(Number(user.quota)).toBe(10_000 + 30 - 150);
    expect(Number(user.used_quota)).toBe(70 + 100 + 250);
    expect(Number(user.request_count)).toBe(3);
    expect(Number(token.remain_quota)).toBe(10_000 + 30 - 150);
    expect(Number(token.used_quota)).toBe(70 + 100 + 250);
    // Every consumed unit has its log row.
    expect(Number(user.used_quota)).toBe((await logRows()).reduce((sum, row) => sum + Number(row.quota), 0));
    // The batch was tried whole first (rolled back, no move told), then each alone.
    expect(moves.map((move) => move || 0)).toEqual([30, 0, -150]);
  });

  it('writes a batch whole when nothing in it is refused', async () => {
    const settle = createSettlementBatcher(batcherOf(db()));
    await Promise.all([settle(settlement('d', 100, 100)), settle(settlement('e', 100, 40))]);
    expect((await logRows()).map((row) => [row.request_id, Number(row.quota)])).toEqual([
      ['d', 100],
      ['e', 40],
    ]);
    expect(Number((await balances()).user.quota)).toBe(10_000 + 60);
  });

  it('names the settlements it could not write at all, with their amounts (a pool already closed: nothing to wait for)', async () => {
    // Another instance on the same database, closed before it settles (not one the suite closes again).
    const gone = await bootWith(test.database);
    const settle = createSettlementBatcher(batcherOf(gone.database.db));
    await gone.close();
    const failure = await settle(settlement('f-lost', 100, 55)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SettlementsNotWritten);
    expect((failure as SettlementsNotWritten).settlements).toEqual([
      { userId, tokenId, channelId: 0, reserved: 100, cost: 55, requestId: 'f-lost' },
    ]);
    // Nothing half-written: no log row, no balance moved.
    expect(await logRows()).toEqual([]);
    expect(Number((await balances()).user.quota)).toBe(10_000);
  });
});
