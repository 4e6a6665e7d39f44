import { LOG_TYPE } from '@sluice/contract/statuses';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateTokenKey } from '../../lib/keys.js';
import { nowSeconds } from '../../lib/time.js';
import { testDialects } from '../../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../../test-support/test-sluice.js';
import { fileJournal, memoryJournal, processStartedAt, type JournalOwner } from './billing-journal.js';
import { createBillingRecovery } from './billing-recovery.js';
import { createBilling } from './billing.js';
import { releaseReservation } from './reservation-rows.js';
import { writeSettlements, type Settlement } from './settlement-write.js';

const START = 100_000;

describe.each(testDialects())('billing recovery after a crash, on %s', (dialect) => {
  let test: TestSluice;
  let userId: number;
  let tokenId: number;
  let journalDir: string;
  const db = () => test.sluice.database.db;

  const balances = async () => {
    const user = await db()
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();
    const token = await db()
      .selectFrom('tokens')
      .select(['remain_quota', 'used_quota'])
      .where('id', '=', tokenId)
      .executeTakeFirstOrThrow();
    return {
      quota: Number(user.quota),
      used: Number(user.used_quota),
      requests: Number(user.request_count),
      tokenRemain: Number(token.remain_quota),
    };
  };
  const logRows = async () =>
    (
      await db()
        .selectFrom('logs')
        .select(['request_id', 'quota'])
        .where('type', '=', LOG_TYPE.consume)
        .where('user_id', '=', userId)
        .orderBy('request_id')
        .execute()
    ).map((row) => [row.request_id, Number(row.quota)]);
  const reservations = () => db().selectFrom('sluice_reservations').selectAll().execute();

  const settlement = (
    requestId: string,
    preQuota: number,
    quota: number,
    reservationId?: string,
  ): Settlement => ({
    payer: { userId, tokenId, unlimited: false },
    username: 'root',
    tokenName: 'key',
    channelId: 0,
    preQuota,
    quota,
    reservationId,
    log: {
      model: 'gpt-4o',
      promptTokens: 1,
      completionTokens: 1,
      content: 'model ratio 1.00',
      requestId,
      elapsedMs: 5,
      stream: true,
      systemPromptReset: false,
    },
  });

  /** A billing as the killed process had it: its journal a file, its lease row written. */
  const deadInstance = async (owner: JournalOwner, leaseUntil: number) => {
    await db()
      .insertInto('sluice_instances')
      .values({
        id: owner.instanceId,
        host: owner.host,
        pid: owner.pid,
        started_at: owner.startedAt,
        lease_until: leaseUntil,
      })
      .execute();
    const journal = fileJournal(journalDir, owner);
    const billing = createBilling({
      db: db(),
      logDb: db(),
      dialect,
      changes: test.sluice.services.changes,
      journal,
    });
    return { journal, billing };
  };

  beforeAll(async () => {
    test = await startTestSluice(dialect);
    journalDir = test.database.env['BILLING_JOURNAL_DIR'] ?? join(dirname(test.database.location), 'journal');
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
  });
  afterAll(async () => {
    await test?.close();
  });
  beforeEach(async () => {
    await db().deleteFrom('logs').execute();
    await db().deleteFrom('sluice_reservations').execute();
    await db()
      .updateTable('users')
      .set({ quota: START, used_quota: 0, request_count: 0 })
      .where('id', '=', userId)
      .execute();
    await db()
      .updateTable('tokens')
      .set({ remain_quota: START, used_quota: 0 })
      .where('id', '=', tokenId)
      .execute();
  });

  it('replays a killed process’s journal once and gives back what its requests in flight held', async () => {
    // The same pid as this process but started before it: a process of this host that is gone.
    const owner: JournalOwner = {
      instanceId: randomUUID(),
      host: hostname(),
      pid: process.pid,
      startedAt: processStartedAt() - 60_000,
    };
    // Its lease has not run out: the process table, not the lease, tells it is dead.
    const { journal, billing } = await deadInstance(owner, Date.now() + 60_000);
    const payer = { userId, tokenId, unlimited: false };
    // Written before the kill: once in the database, once in the journal. The pool took a slice of
    // 2,000 (a 50th of the quota; 200 estimates of 100 would be more).
    const pool = await billing.admit(payer, 100, START, START);
    await billing.settle(settlement('a-written', 100, 70, pool));
    // Answered, journaled, not yet written when the kill came.
    expect(await billing.admit(payer, 500, START, START)).toBe(pool);
    journal.append(settlement('b-answered', 500, 300, pool));
    journal.append(settlement('c-no-pool', 0, 1_000));
    // In flight: admitted, never answered.
    expect(await billing.admit(payer, 400, START, START)).toBe(pool);
    journal.close();
    // The kill cut the last write short.
    const [segment] = readdirSync(journalDir).filter((name) => name.startsWith(owner.instanceId));
    appendFileSync(join(journalDir, segment ?? ''), '{"s":99,"t":{"payer":');
    expect((await balances()).quota).toBe(START - 2_000);

    const report = await createBillingRecovery({
      db: db(),
      logDb: db(),
      dialect,
      journalDir,
      self: { ...owner, instanceId: randomUUID(), startedAt: processStartedAt() },
      logger: pino({ level: 'silent' }),
    }).run();

    expect(report).toMatchObject({
      replayed: 2,
      alreadyWritten: 1,
      released: 1,
      releasedQuota: 2_000 - 70 - 300,
    });
    const after = await balances();
    expect(after.quota).toBe(START - 70 - 300 - 1_000);
    expect(after.tokenRemain).toBe(START - 70 - 300 - 1_000);
    // Every unit taken has its log row.
    expect(await logRows()).toEqual([
      ['a-written', 70],
      ['b-answered', 300],
      ['c-no-pool', 1_000],
    ]);
    expect(after.used).toBe(70 + 300 + 1_000);
    expect(after.requests).toBe(3);
    // Nothing of the dead instance is left: no reservation, no lease, no journal, no ranges.
    expect(await reservations()).toEqual([]);
    expect(
      await db().selectFrom('sluice_instances').select('id').where('id', '=', owner.instanceId).execute(),
    ).toEqual([]);
    expect(
      await db()
        .selectFrom('sluice_settled')
        .select('seq_from')
        .where('instance_id', '=', owner.instanceId)
        .execute(),
    ).toEqual([]);
    expect(readdirSync(journalDir).filter((name) => name.startsWith(owner.instanceId))).toEqual([]);
  });

  it('leaves a living instance’s journal alone (its pid is alive and its lease holds)', async () => {
    const owner: JournalOwner = {
      instanceId: randomUUID(),
      host: hostname(),
      pid: process.pid,
      startedAt: processStartedAt(),
    };
    const { journal } = await deadInstance(owner, Date.now() + 60_000);
    journal.append(settlement('d-living', 0, 10));
    const report = await createBillingRecovery({
      db: db(),
      logDb: db(),
      dialect,
      journalDir,
      self: { ...owner, instanceId: randomUUID() },
      logger: pino({ level: 'silent' }),
    }).run();
    expect(report.replayed).toBe(0);
    expect(await logRows()).toEqual([]);
    expect(readdirSync(journalDir).some((name) => name.startsWith(owner.instanceId))).toBe(true);
    journal.written([1]);
    journal.close();
    await db().deleteFrom('sluice_instances').where('id', '=', owner.instanceId).execute();
  });

  it('frees the reservations of an instance whose lease ran out; its late settlement then charges in full', async () => {
    const owner: JournalOwner = { instanceId: randomUUID(), host: 'another-host', pid: 1, startedAt: 0 };
    const { billing } = await deadInstance(owner, Date.now() - 1);
    const payer = { userId, tokenId, unlimited: false };
    const stalled = await billing.admit(payer, 600, START, START);
    const report = await createBillingRecovery({
      db: db(),
      logDb: db(),
      dialect,
      journalDir: undefined,
      self: { instanceId: randomUUID(), host: hostname(), pid: process.pid, startedAt: processStartedAt() },
      logger: pino({ level: 'silent' }),
    }).run();
    // Its pool held a slice of 2,000 (a 50th of the quota).
    expect(report).toMatchObject({ released: 1, releasedQuota: 2_000 });
    expect((await balances()).quota).toBe(START);
    // The instance was only stalled: its request ends and settles against a reservation given back.
    await billing.settle(settlement('e-late', 600, 250, stalled));
    expect((await balances()).quota).toBe(START - 250);
    expect(await logRows()).toEqual([['e-late', 250]]);
    // Only its tombstone is left (purged after a week): nothing is held.
    expect((await reservations()).map((row) => Number(row.released_at) > 0)).toEqual([true]);
  });

  it('gives back what a reservation holds at its release, not what a read before it saw', async () => {
    // A lapsed lease while the instance still writes: a settlement's draw commits between the
    // recovery's read of the rows and its release of one. Found by the billing-lag test on a loaded
    // machine: the stale amount gave the user every such draw back.
    const id = randomUUID();
    await db()
      .insertInto('sluice_reservations')
      .values({
        id,
        instance_id: randomUUID(),
        user_id: userId,
        token_id: tokenId,
        unlimited: false,
        quota: 1_000,
        created_at: nowSeconds(),
        released_at: 0,
      })
      .execute();
    const [seen] = await reservations();
    await db()
      .updateTable('sluice_reservations')
      .set((eb) => ({ quota: eb('quota', '-', 300) }))
      .where('id', '=', id)
      .execute();
    const row = { id, user_id: userId, token_id: tokenId, unlimited: false, quota: Number(seen?.quota) };
    expect(row.quota).toBe(1_000);
    expect(
      await db()
        .transaction()
        .execute((trx) => releaseReservation(trx, row)),
    ).toBe(700);
    expect(await balances()).toMatchObject({ quota: START + 700, tokenRemain: START + 700 });
    // A second party (an instance giving its idle pool back, another recovery) gives nothing.
    expect(
      await db()
        .transaction()
        .execute((trx) => releaseReservation(trx, row)),
    ).toBeUndefined();
    expect(await balances()).toMatchObject({ quota: START + 700, tokenRemain: START + 700 });
  });

  it('writes a batch whose COMMIT outcome was unknown only once when it is tried again', async () => {
    const journal = memoryJournal(randomUUID());
    const entries = [
      { seq: journal.append(settlement('f-once', 0, 40)), settlement: settlement('f-once', 0, 40) },
      { seq: journal.append(settlement('g-once', 0, 60)), settlement: settlement('g-once', 0, 60) },
    ];
    const scope = { dialect, instanceId: journal.instanceId, logsHere: true };
    await db()
      .transaction()
      .execute((trx) => writeSettlements(trx, entries, { ...scope, checkWritten: false }));
    // The retry after a connection lost during COMMIT: it did commit, so nothing is written again.
    const again = await db()
      .transaction()
      .execute((trx) => writeSettlements(trx, entries, { ...scope, checkWritten: true }));
    expect(again.written).toBe(0);
    expect((await balances()).quota).toBe(START - 100);
    expect(await logRows()).toEqual([
      ['f-once', 40],
      ['g-once', 60],
    ]);
  });

  it('keeps its own journal only while settlements wait: a clean stop leaves no file', async () => {
    const another = await test.boot();
    const before = readdirSync(journalDir).length;
    await another.close();
    expect(readdirSync(journalDir).length).toBe(before - 1);
    expect(existsSync(journalDir)).toBe(true);
  });
});
