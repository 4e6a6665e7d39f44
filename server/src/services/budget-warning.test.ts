import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../test-support/relay-fixture.js';
import { startSmtpSink, type SmtpSink } from '../test-support/smtp-sink.js';
import { testDialects } from '../test-support/test-databases.js';
import { startWebhookReceiver, type WebhookReceiver } from '../test-support/webhook-receiver.js';
import { BUDGET_WARNED_PURPOSE } from './budget-warning.js';

const MODEL = 'gpt-3.5-turbo';
const SECRET = 'budget-alert-secret-0123';

describe.each(testDialects())('the budget warning mail at BudgetWarningPercent (%s)', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  let smtp: SmtpSink;
  let receiver: WebhookReceiver;
  let serial = 0;
  const sluice = () => fixture.test.sluice;
  const db = () => sluice().database.db;
  const chat = async (user: RelayUser) => {
    await user.sdk.chat.completions
      .create({ model: MODEL, messages: [{ role: 'user', content: 'hello' }] })
      .catch(() => undefined);
    await sluice().idle();
  };
  const withEmail = async (user: RelayUser) => {
    const email = `budget-${dialect}-${(serial += 1)}@example.com`;
    await db().updateTable('users').set({ email }).where('id', '=', user.userId).execute();
    await sluice().services.changes.emit({ kind: 'user', id: user.userId });
    return email;
  };
  const mailsTo = (email: string) => smtp.mails.filter((mail) => mail.envelopeTo.includes(email));

  beforeAll(async () => {
    [upstream, smtp, receiver] = await Promise.all([
      startOpenAiDouble(),
      startSmtpSink(),
      startWebhookReceiver(SECRET),
    ]);
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'steady', base_url: upstream.url, models: MODEL });
    const options: Record<string, string> = {
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPFrom: 'noreply@sluice.test',
      BudgetWarningPercent: '1',
      BudgetTimeZone: 'UTC',
      AlertWebhooks: JSON.stringify([{ name: 'ops', url: receiver.url, secret: SECRET }]),
    };
    for (const [key, value] of Object.entries(options)) await sluice().services.options.update(key, value);
  });
  afterAll(async () => {
    await fixture?.close();
    await Promise.all([upstream?.close(), smtp?.close(), receiver?.close()]);
  });

  it("mails once per window when a key's budget reaches the threshold; the marker ends with the window", async () => {
    const user = await fixture.user({ token: { budget_daily: 10_000 } });
    const email = await withEmail(user);
    for (let request = 0; request < 3; request += 1) await chat(user);
    const mail = await smtp.next(email);
    expect(mail.subject).toBe('Budget warning: your key test key: daily budget is 1% spent');
    expect(mail.body).toContain('Requests past the budget are refused until the window ends');
    expect(mailsTo(email)).toHaveLength(1);
    const marker = await db()
      .selectFrom('sluice_codes')
      .select('expires_at')
      .where('purpose', '=', BUDGET_WARNED_PURPOSE)
      .where('key', '=', `t:${user.tokenId}:daily`)
      .executeTakeFirstOrThrow();
    // The next UTC midnight: the daily window's end.
    const midnight = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400;
    expect(Number(marker.expires_at)).toBe(midnight);
    // The same moment, once: a signed budget.threshold webhook with the key, window, used and cap.
    await expect
      .poll(() => receiver.received.filter((hook) => hook.body.data['token_id'] === user.tokenId))
      .toHaveLength(1);
    const hook = receiver.received.find((entry) => entry.body.data['token_id'] === user.tokenId);
    expect(hook?.verified).toBe(true);
    expect(hook?.body.event).toBe('budget.threshold');
    expect(hook?.body.data).toMatchObject({
      subject: 'token',
      window: 'daily',
      cap: 10_000,
      ends_at: midnight,
    });
    expect(Number(hook?.body.data['used'])).toBeGreaterThanOrEqual(100);
  });

  it("warns of a user's own budget, in the user's words", async () => {
    const user = await fixture.user();
    await db().updateTable('users').set({ budget_weekly: 10_000 }).where('id', '=', user.userId).execute();
    const email = await withEmail(user);
    await chat(user);
    await chat(user);
    expect((await smtp.next(email)).subject).toBe('Budget warning: your weekly budget is 1% spent');
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('mails nobody below the threshold', async () => {
    const user = await fixture.user({ token: { budget_monthly: 1_000_000_000 } });
    const email = await withEmail(user);
    await chat(user);
    expect(mailsTo(email)).toHaveLength(0);
  });
});
