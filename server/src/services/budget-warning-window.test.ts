import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../test-support/smtp-sink.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { testDialects } from '../test-support/test-databases.js';
import { createBudgetWarning, type BudgetCrossing } from './budget-warning.js';

/** 10:00 UTC on a day of a year ahead, and that day's and the next day's ends (Unix seconds). */
const MORNING = Date.UTC(2030, 0, 10, 10);
const FIRST_END = Date.UTC(2030, 0, 11) / 1000;
const SECOND_END = Date.UTC(2030, 0, 12) / 1000;

/**
 * Issue 16: the warning mail goes once per window, on every instance together, and again once the
 * window has rolled over. A fake clock (Date only: the database and SMTP keep their real timers)
 * moves across the day's end.
 */
describe.each(testDialects())('the budget warning across a window change (%s)', (dialect) => {
  let test: TestSluice;
  let smtp: SmtpSink;
  let serial = 0;
  const pending: Promise<unknown>[] = [];

  /** One instance's warning service (its own memo), over the shared database and SMTP sink. */
  const instance = () => {
    const { sluice } = test;
    return createBudgetWarning({
      db: sluice.database.db,
      dialect: sluice.database.dialect,
      options: sluice.services.options,
      mailer: sluice.services.mailer,
      logger: pino({ level: 'silent' }),
      track: (work) => pending.push(work),
    });
  };
  const settled = async () => {
    while (pending.length > 0) await Promise.all(pending.splice(0));
  };

  beforeAll(async () => {
    [test, smtp] = await Promise.all([startTestSluice(dialect), startSmtpSink()]);
    const options: Record<string, string> = {
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPFrom: 'noreply@sluice.test',
      BudgetWarningPercent: '80',
    };
    for (const [key, value] of Object.entries(options)) await test.sluice.services.options.update(key, value);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await test?.close();
    await smtp?.close();
  });

  it('mails once in a window, however many instances see it, and again after it rolls over', async () => {
    const email = `window-${dialect}-${(serial += 1)}@example.com`;
    await test.sluice.database.db.updateTable('users').set({ email }).where('id', '=', 1).execute();
    const crossing = (endsAt: number): BudgetCrossing => ({
      subject: 'u',
      id: 1,
      window: 'daily',
      limit: 10_000,
      used: 8_500,
      endsAt,
    });
    const mails = () => smtp.mails.filter((mail) => mail.envelopeTo.includes(email));
    const [one, two] = [instance(), instance()];
    vi.useFakeTimers({ toFake: ['Date'] });

    vi.setSystemTime(MORNING);
    one.observe([crossing(FIRST_END)]);
    await settled();
    expect((await smtp.next(email)).subject).toBe('Budget warning: your daily budget is 80% spent');
    // Later the same day: this instance remembers the window, the other finds its marker.
    vi.setSystemTime(MORNING + 13 * 3_600_000);
    one.observe([crossing(FIRST_END)]);
    two.observe([crossing(FIRST_END)]);
    await settled();
    expect(mails()).toHaveLength(1);

    // Just past midnight the window has rolled over: one mail for the new day, from either instance.
    vi.setSystemTime(FIRST_END * 1000 + 1_000);
    one.observe([crossing(SECOND_END)]);
    two.observe([crossing(SECOND_END)]);
    await settled();
    await expect.poll(() => mails().length).toBe(2);
    expect(mails()[1]?.body).toContain(new Date(SECOND_END * 1000).toISOString());
    one.observe([crossing(SECOND_END)]);
    await settled();
    expect(mails()).toHaveLength(2);
  });
});
