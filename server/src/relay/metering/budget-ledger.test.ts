import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSluice, type TestSluice } from '../../test-support/test-sluice.js';
import { testDialects } from '../../test-support/test-databases.js';
import { createBudgetLedger, type BudgetSubject } from './budget-ledger.js';
import { BudgetRefusal } from './budget-refusal.js';

const CALENDAR_UTC = { BudgetWindowMode: 'calendar', BudgetTimeZone: 'UTC' };

/** A key with a budget in one window (BUDGET_WINDOWS' order: 5h, daily, weekly, monthly). */
const key = (id: number, limits: number[]): BudgetSubject => ({ subject: 't', id, limits });

describe.each(testDialects())('budget ledger on %s', (dialect) => {
  let test: TestSluice;
  let clock = Date.parse('2026-11-25T10:00:00Z');
  const ledgerOn = (sluice = test.sluice) =>
    createBudgetLedger({ db: sluice.database.db, dialect, now: () => clock });
  let nextId = 1000;

  beforeAll(async () => {
    test = await startTestSluice(dialect);
  });
  afterAll(async () => {
    await test?.close();
  });

  const refusal = async (work: unknown) => {
    const error = await Promise.resolve(work).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(BudgetRefusal);
    return error as BudgetRefusal;
  };

  it('admits up to the budget, refuses past it with 429 and Retry-After, and counts the real costs', async () => {
    const ledger = ledgerOn();
    const subject = key((nextId += 1), [0, 100, 0, 0]);
    const first = await ledger.admit([subject], 60, CALENDAR_UTC);
    const second = await ledger.admit([subject], 40, CALENDAR_UTC);
    const refused = await refusal(ledger.admit([subject], 1, CALENDAR_UTC));
    expect(refused).toMatchObject({
      status: 429,
      code: 'budget_exceeded',
      type: 'insufficient_quota',
      window: 'daily',
    });
    // 14:00 until midnight UTC.
    expect(refused.headers['retry-after']).toBe(String(14 * 3600));
    // The first cost less than its estimate: room is freed; nothing answered the second: all of it.
    ledger.end(first, 30);
    ledger.end(second, 0);
    expect((await ledger.usage('t', subject.id, CALENDAR_UTC)).used.daily).toBe(30);
    await ledger.admit([subject], 70, CALENDAR_UTC);
    await refusal(ledger.admit([subject], 1, CALENDAR_UTC));
  });

  it('lets one request through an empty window even when it is larger than the budget', async () => {
    const ledger = ledgerOn();
    const subject = key((nextId += 1), [50, 0, 0, 0]);
    await ledger.admit([subject], 80, CALENDAR_UTC);
    await refusal(ledger.admit([subject], 1, CALENDAR_UTC));
  });

  it('starts a calendar day over at midnight of BudgetTimeZone', async () => {
    const ledger = ledgerOn();
    const subject = key((nextId += 1), [0, 100, 0, 0]);
    const shanghai = { BudgetWindowMode: 'calendar', BudgetTimeZone: 'Asia/Shanghai' };
    clock = Date.parse('2026-11-25T15:50:00Z'); // 23:50 in Shanghai
    await ledger.admit([subject], 100, shanghai);
    const refused = await refusal(ledger.admit([subject], 10, shanghai));
    expect(refused.headers['retry-after']).toBe('600');
    clock = Date.parse('2026-11-25T15:59:59Z');
    await refusal(ledger.admit([subject], 10, shanghai));
    clock = Date.parse('2026-11-25T16:00:00Z'); // midnight
    await ledger.admit([subject], 10, shanghai);
    // The week (from Monday) and the month have it all.
    const usage = await ledger.usage('t', subject.id, shanghai);
    expect(usage.used).toEqual({ '5h': 110, daily: 10, weekly: 110, monthly: 110 });
  });

  it('reads the windows again when BudgetTimeZone changes within a quarter hour', async () => {
    const ledger = ledgerOn();
    const subject = key((nextId += 1), [0, 100, 0, 0]);
    const shanghai = { BudgetWindowMode: 'calendar', BudgetTimeZone: 'Asia/Shanghai' };
    clock = Date.parse('2026-11-27T15:50:00Z'); // 23:50 in Shanghai
    await ledger.admit([subject], 100, shanghai);
    clock = Date.parse('2026-11-27T16:05:00Z'); // a new day in Shanghai, not in UTC
    await ledger.admit([subject], 10, shanghai);
    await refusal(ledger.admit([subject], 1, CALENDAR_UTC));
    await ledger.admit([subject], 1, shanghai);
  });

  it('lets rolling spending go once its quarter hour is a window older', async () => {
    const ledger = ledgerOn();
    const subject = key((nextId += 1), [100, 0, 0, 0]);
    clock = Date.parse('2026-11-26T08:05:00Z');
    await ledger.admit([subject], 100, CALENDAR_UTC);
    clock = Date.parse('2026-11-26T12:00:00Z');
    const refused = await refusal(ledger.admit([subject], 1, CALENDAR_UTC));
    // The 08:00 quarter hour leaves the 5 hours at 13:15.
    expect(refused.headers['retry-after']).toBe(String(75 * 60));
    clock = Date.parse('2026-11-26T13:14:59Z');
    await refusal(ledger.admit([subject], 1, CALENDAR_UTC));
    clock = Date.parse('2026-11-26T13:15:00Z');
    await ledger.admit([subject], 1, CALENDAR_UTC);
  });

  it('refuses on the user’s budget as on the key’s, and counts both', async () => {
    const ledger = ledgerOn();
    const user: BudgetSubject = { subject: 'u', id: (nextId += 1), limits: [0, 0, 0, 100] };
    const keyA = key((nextId += 1), [0, 0, 0, 1000]);
    const keyB = key((nextId += 1), [0, 0, 0, 1000]);
    await ledger.admit([user, keyA], 60, CALENDAR_UTC);
    const refused = await refusal(ledger.admit([user, keyB], 50, CALENDAR_UTC));
    expect(refused.subject).toBe('u');
    expect((await ledger.usage('t', keyA.id, CALENDAR_UTC)).used.monthly).toBe(60);
    expect((await ledger.usage('t', keyB.id, CALENDAR_UTC)).used.monthly).toBe(0);
  });

  const insertKey = async (id: number) =>
    test.sluice.database.db
      .insertInto('tokens')
      .values({
        id,
        user_id: 1,
        key: `budgetkey${id}`,
        status: 1,
        name: 'budget',
        created_time: 0,
        accessed_time: 0,
        expired_time: -1,
        remain_quota: 0,
        unlimited_quota: true,
        used_quota: 0,
      })
      .execute();
  /** The subject's row in the current quarter hour: spent and held. */
  const row = async (id: number) => {
    const found = await test.sluice.database.db
      .selectFrom('sluice_budget_usage')
      .select(['used', 'held'])
      .where('subject', '=', 't')
      .where('subject_id', '=', id)
      .execute();
    return {
      used: found.reduce((sum, one) => sum + Number(one.used), 0),
      held: found.reduce((sum, one) => sum + Number(one.held), 0),
    };
  };

  it('never admits past the budget among 50 concurrent requests on two instances, and exactly to it once slices are back', async () => {
    // SQLite serves one instance (its file has one writer); two ledgers share it there.
    const other = dialect === 'sqlite' ? test.sluice : await test.boot();
    const ledgers = [ledgerOn(), ledgerOn(other)];
    const subject = key((nextId += 1), [0, 1000, 0, 0]);
    await insertKey(subject.id);
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) =>
        Promise.resolve(ledgers[index % 2]!.admit([subject], 30, CALENDAR_UTC)),
      ),
    );
    for (const result of results)
      if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(BudgetRefusal);
    const admitted = results.filter((result) => result.status === 'fulfilled').length;
    // 33 fit; another instance's slice may hold back the last one or two until it is given back.
    expect(admitted).toBeLessThanOrEqual(33);
    expect(admitted).toBeGreaterThanOrEqual(31);
    for (const ledger of ledgers) await ledger.sweep(true);
    expect((await ledgers[0]!.usage('t', subject.id, CALENDAR_UTC)).used.daily).toBe(admitted * 30);
    let more = 0;
    while (more < 5) {
      const next = await Promise.resolve(ledgers[more % 2]!.admit([subject], 30, CALENDAR_UTC)).catch(
        (error: unknown) => error,
      );
      if (next instanceof BudgetRefusal) break;
      more += 1;
    }
    expect(admitted + more).toBe(33);
  });

  it('admits from the slice in memory, writes what it spent every sweep, and gives the rest back when idle', async () => {
    const ledger = ledgerOn();
    const subject = key((nextId += 1), [0, 0, 0, 1_000_000]);
    const first = await ledger.admit([subject], 100, CALENDAR_UTC);
    // The first request took a slice: the next ones are admitted without the database.
    const holds = [first];
    for (let index = 0; index < 50; index += 1) {
      const hold = ledger.admit([subject], 100, CALENDAR_UTC);
      expect(hold).not.toBeInstanceOf(Promise);
      holds.push(hold as Exclude<typeof hold, Promise<unknown>>);
    }
    const taken = await row(subject.id);
    expect(taken.used).toBe(0);
    // The request, then up to 100 more estimates or a 50th of the room left.
    expect(taken.held).toBe(100 + Math.min(100 * 100, Math.floor((1_000_000 - 100) / 50)));
    for (const hold of holds) ledger.end(hold, 40);
    await ledger.sweep();
    expect(await row(subject.id)).toEqual({ used: 51 * 40, held: taken.held - 51 * 40 });
    await ledger.sweep(true);
    expect(await row(subject.id)).toEqual({ used: 51 * 40, held: 0 });
  });

  it('takes a new slice when the budget changes, and refuses at once on a lowered one', async () => {
    const ledger = ledgerOn();
    const id = (nextId += 1);
    const holds = [await ledger.admit([key(id, [0, 100_000, 0, 0])], 1000, CALENDAR_UTC)];
    const second = ledger.admit([key(id, [0, 100_000, 0, 0])], 1000, CALENDAR_UTC);
    expect(second).not.toBeInstanceOf(Promise);
    holds.push(await second);
    // Lowered: the old slice's room is given back; 2000 spent and 1000 more fit in 3500…
    holds.push(await ledger.admit([key(id, [0, 3500, 0, 0])], 1000, CALENDAR_UTC));
    // …and nothing more in 3500, nor in 1500.
    await refusal(ledger.admit([key(id, [0, 3500, 0, 0])], 1000, CALENDAR_UTC));
    const refused = await refusal(ledger.admit([key(id, [0, 1500, 0, 0])], 1000, CALENDAR_UTC));
    expect(refused.window).toBe('daily');
    for (const hold of holds) ledger.end(hold, 1000);
    await ledger.sweep(true);
    expect(await row(id)).toEqual({ used: 3000, held: 0 });
  });

  it('prunes the buckets no window reaches', async () => {
    const ledger = ledgerOn();
    const subject = key((nextId += 1), [0, 0, 0, 100]);
    clock = Date.parse('2026-09-01T00:00:00Z');
    await ledger.admit([subject], 10, CALENDAR_UTC);
    clock = Date.parse('2026-11-27T00:00:00Z');
    await ledger.prune();
    const left = await test.sluice.database.db
      .selectFrom('sluice_budget_usage')
      .select('bucket')
      .where('subject_id', '=', subject.id)
      .execute();
    expect(left).toEqual([]);
  });
});
