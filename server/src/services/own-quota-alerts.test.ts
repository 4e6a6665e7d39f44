import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { startOpenAiDouble, type OpenAiDouble } from '../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../test-support/relay-fixture.js';
import { startSmtpSink, type SmtpSink } from '../test-support/smtp-sink.js';
import { testDialects } from '../test-support/test-databases.js';

/** Users choosing their own quota alerts (PUT /api/user/self), as the relay's reminders honour them. */
describe.each(testDialects())('users’ own quota alerts on %s', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  let smtp: SmtpSink;
  let serial = 0;
  const sluice = () => fixture.test.sluice;
  const db = () => sluice().database.db;

  beforeAll(async () => {
    [upstream, smtp] = await Promise.all([startOpenAiDouble(), startSmtpSink()]);
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'steady', base_url: upstream.url, models: 'gpt-3.5-turbo' });
  });
  afterAll(async () => {
    await fixture?.close();
    for (const double of [upstream, smtp]) await double?.close();
  });
  beforeEach(async () => {
    const values = {
      ServerAddress: 'https://gateway.example.com',
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPFrom: 'noreply@sluice.test',
      QuotaRemindThreshold: '5000000',
      AlertCooldownMinutes: '0',
    };
    for (const [key, value] of Object.entries(values)) await sluice().services.options.update(key, value);
  });

  /** A user with an email and a key, signed in to the console as themselves. */
  const signedInUser = async (
    quota: number,
    token?: { remain_quota: number },
  ): Promise<{ user: RelayUser; api: ApiClient; email: string }> => {
    const user = await fixture.user({
      quota,
      ...(token ? { token: { unlimited_quota: false, remain_quota: token.remain_quota } } : {}),
    });
    const email = `own-${dialect}-${(serial += 1)}@example.com`;
    await db().updateTable('users').set({ email }).where('id', '=', user.userId).execute();
    await sluice().services.changes.emit({ kind: 'user', id: user.userId });
    const { username } = await db()
      .selectFrom('users')
      .select('username')
      .where('id', '=', user.userId)
      .executeTakeFirstOrThrow();
    const api = apiClient(sluice().app);
    await api.login(username, 'password123');
    return { user, api, email };
  };
  const chat = async (user: RelayUser) => {
    await user.sdk.chat.completions
      .create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 20 })
      .catch(() => undefined);
    await sluice().idle();
  };
  const mailsTo = (email: string) => smtp.mails.filter((mail) => mail.envelopeTo.includes(email));
  const reminded = async (userId: number) =>
    (await db()
      .selectFrom('sluice_codes')
      .select('key')
      .where('purpose', '=', 'quota_remind')
      .where('key', '=', String(userId))
      .executeTakeFirst()) !== undefined;

  it('are null (the site’s) on a new user, and a user sets, reads and clears them', async () => {
    const { api } = await signedInUser(8_000_000);
    const self = async () => (await api.get('/api/user/self')).body.data as Record<string, unknown>;
    expect(await self()).toMatchObject({ quota_alert_threshold: null, token_alert_threshold: null });

    const saved = await api.put('/api/user/self', {
      quota_alert_threshold: 2_500_000,
      token_alert_threshold: 0,
    });
    expect(saved.body).toMatchObject({ success: true });
    expect(await self()).toMatchObject({ quota_alert_threshold: 2_500_000, token_alert_threshold: 0 });

    // A body without them (the name form) leaves them as they are; null gives back the site's.
    expect((await api.put('/api/user/self', { display_name: 'Alerted' })).body.success).toBe(true);
    expect(await self()).toMatchObject({ display_name: 'Alerted', quota_alert_threshold: 2_500_000 });
    await api.put('/api/user/self', { quota_alert_threshold: null });
    expect(await self()).toMatchObject({ quota_alert_threshold: null, token_alert_threshold: 0 });
  });

  it('refuses a threshold that is not a whole number of quota units at or above 0, changing nothing', async () => {
    const { api, user } = await signedInUser(8_000_000);
    await api.put('/api/user/self', { quota_alert_threshold: 1000 });
    for (const bad of [-1, 1.5, '1000', 1e30]) {
      const answer = await api.put('/api/user/self', { quota_alert_threshold: bad, display_name: 'changed' });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: false });
      expect(answer.body.message).toMatch(/quota_alert_threshold/);
    }
    const row = await db()
      .selectFrom('users')
      .select(['quota_alert_threshold', 'display_name'])
      .where('id', '=', user.userId)
      .executeTakeFirstOrThrow();
    expect(Number(row.quota_alert_threshold)).toBe(1000);
    expect(row.display_name).not.toBe('changed');
  });

  it('mails at the user’s own threshold, above the site’s, from the next request on', async () => {
    const { user, api, email } = await signedInUser(8_000_000);
    // Above the site's 5,000,000: no reminder. The user (now in the relay's memory) raises theirs.
    await chat(user);
    expect(mailsTo(email)).toHaveLength(0);
    await api.put('/api/user/self', { quota_alert_threshold: 9_000_000 });
    await chat(user);
    expect((await smtp.next(email)).subject).toBe('Your quota is about to run out');
    expect(await reminded(user.userId)).toBe(true);

    // Back to the site's threshold, which the quota is above: the reminder re-arms.
    await api.put('/api/user/self', { quota_alert_threshold: null });
    await chat(user);
    expect(await reminded(user.userId)).toBe(false);
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('stays quiet above a lower threshold of the user’s own, where the site’s would have mailed', async () => {
    const { user, api, email } = await signedInUser(4_000_000);
    await api.put('/api/user/self', { quota_alert_threshold: 1_000_000 });
    await chat(user);
    expect(mailsTo(email)).toHaveLength(0);
    expect(await reminded(user.userId)).toBe(false);
  });

  it('never mails a user who turned the alert off, not even when the quota runs out', async () => {
    const { user, api, email } = await signedInUser(10);
    await api.put('/api/user/self', { quota_alert_threshold: 0 });
    await chat(user);
    expect(mailsTo(email)).toHaveLength(0);
    expect(await reminded(user.userId)).toBe(false);
    // Turned on again (the site's), the run-out quota is reminded at once.
    await api.put('/api/user/self', { quota_alert_threshold: null });
    await chat(user);
    expect((await smtp.next(email)).subject).toBe('Your quota has run out');
  });

  it('applies the user’s key threshold to their limited keys, and none when it is off', async () => {
    const { user, api, email } = await signedInUser(100_000_000, { remain_quota: 300_000 });
    // The site's 5,000,000 would call the key low: the user's 1,000 does not.
    await api.put('/api/user/self', { quota_alert_threshold: 0, token_alert_threshold: 1000 });
    await chat(user);
    expect(mailsTo(email)).toHaveLength(0);

    await api.put('/api/user/self', { token_alert_threshold: 400_000 });
    await chat(user);
    const mail = await smtp.next(email);
    expect(mail.subject).toBe('Your key is about to run out of quota');
    expect(mail.body).toContain(`(#${user.tokenId})`);

    // Off: the key crossing back and down again alerts nobody.
    await api.put('/api/user/self', { token_alert_threshold: 0 });
    await chat(user);
    await db().updateTable('tokens').set({ remain_quota: 10 }).where('id', '=', user.tokenId).execute();
    await sluice().services.changes.emit({ kind: 'token', id: user.key });
    await chat(user);
    expect(mailsTo(email)).toHaveLength(1);
  });
});
