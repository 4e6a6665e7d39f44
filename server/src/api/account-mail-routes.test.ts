import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashPassword } from '../lib/password.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { startTurnstileDouble, type TurnstileDouble } from '../test-support/check-and-push-doubles.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../test-support/smtp-sink.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';

const CODE_WRONG = { success: false, message: 'the verification code is wrong or has expired' };

/** The 6-hex code of a verification mail. */
const codeIn = (mail: ReceivedMail): string => {
  const match = /<strong>([0-9a-f]{6})<\/strong>/.exec(mail.body);
  if (!match?.[1]) throw new Error(`no code in ${mail.body}`);
  return match[1];
};

/** The reset link of a password reset mail. */
const linkIn = (mail: ReceivedMail): URL => {
  const match = /href="([^"]+)"/.exec(mail.body);
  if (!match?.[1]) throw new Error(`no link in ${mail.body}`);
  return new URL(match[1].replaceAll('&amp;', '&'));
};

describe.each(testDialects())('email verification, binding and password reset on %s', (dialect) => {
  let test: TestSluice;
  let smtp: SmtpSink;
  let turnstile: TurnstileDouble;
  let serial = 0;
  const unique = (prefix = 'm') => `${prefix}${(serial += 1)}${dialect.slice(0, 2)}`;
  const address = (prefix = 'm') => `${unique(prefix)}@example.com`;

  const db = () => test.sluice.database.db;
  const client = (): ApiClient => apiClient(test.sluice.app);
  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) await test.sluice.services.options.update(key, value);
  };
  const userByName = (username: string) =>
    db().selectFrom('users').selectAll().where('username', '=', username).executeTakeFirstOrThrow();

  const passwordUser = async (email = '') => {
    const username = unique('pw');
    await db()
      .insertInto('users')
      .values({
        username,
        password: await hashPassword('password123'),
        display_name: `Name ${username}`,
        role: 1,
        status: 1,
        email,
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: 'default',
      })
      .execute();
    return userByName(username);
  };

  const sendCode = async (email: string, browser = client()) => {
    const response = await browser.get(`/api/verification?email=${encodeURIComponent(email)}`);
    expect(response.body).toEqual({ success: true, message: '' });
    return codeIn(await smtp.next(email));
  };

  const register = (browser: ApiClient, username: string, email: string, code: string) =>
    browser.post('/api/user/register', {
      username,
      password: 'password123',
      password2: 'password123',
      email,
      verification_code: code,
    });

  beforeAll(async () => {
    smtp = await startSmtpSink();
    turnstile = await startTurnstileDouble();
    test = await startTestSluice(dialect, { TURNSTILE_VERIFY_URL: turnstile.url });
  });
  afterAll(async () => {
    await test?.close();
    await smtp?.close();
    await turnstile?.close();
  });

  beforeEach(async () => {
    smtp.refuseRecipients = false;
    await setOptions({
      SystemName: 'Sluice Test',
      ServerAddress: 'https://gateway.example.com',
      SMTPServer: smtp.host,
      SMTPPort: String(smtp.port),
      SMTPAccount: '',
      SMTPToken: '',
      SMTPFrom: 'noreply@sluice.test',
      RegisterEnabled: 'true',
      PasswordRegisterEnabled: 'true',
      EmailVerificationEnabled: 'true',
      EmailDomainRestrictionEnabled: 'false',
      TurnstileSiteKey: 'site-key',
      TurnstileSecretKey: turnstile.secret,
      TurnstileCheckEnabled: 'false',
    });
  });

  describe('GET /api/verification', () => {
    it('mails a 6-hex code from SMTPFrom that registers an account once', async () => {
      const email = address();
      const browser = client();
      expect((await browser.get(`/api/verification?email=${email}`)).body).toEqual({
        success: true,
        message: '',
      });
      const mail = await smtp.next(email);
      expect(mail.subject).toBe('Sluice Test email verification');
      expect(mail.envelopeFrom).toBe('noreply@sluice.test');
      expect(mail.headers.get('from')).toBe('Sluice Test <noreply@sluice.test>');
      const code = codeIn(mail);
      const username = unique('r');
      expect((await register(browser, username, email, code)).body).toEqual({ success: true, message: '' });
      expect((await userByName(username)).email).toBe(email);
      expect((await register(browser, unique('r'), email, code)).body).toEqual(CODE_WRONG);
    });

    it('refuses an expired code', async () => {
      const email = address();
      const code = await sendCode(email);
      await db().updateTable('sluice_codes').set({ expires_at: 1 }).where('key', '=', email).execute();
      expect((await register(client(), unique('r'), email, code)).body).toEqual(CODE_WRONG);
    });

    it('accepts on one instance a code another instance sent', async () => {
      const other = await test.boot();
      const email = address();
      const code = await sendCode(email);
      const username = unique('r');
      expect((await register(apiClient(other.app), username, email, code)).body.success).toBe(true);
    });

    it('refuses a malformed address and an address already taken, mailing nothing', async () => {
      const sent = smtp.mails.length;
      const malformed = await client().get('/api/verification?email=not-an-address');
      expect(malformed.body.success).toBe(false);
      expect(malformed.body.message).toMatch(/^invalid parameter/);
      expect((await client().get('/api/verification')).body.message).toMatch(/^invalid parameter/);
      const owner = await passwordUser(address('own'));
      expect((await client().get(`/api/verification?email=${owner.email}`)).body).toEqual({
        success: false,
        message: 'the email address is already taken',
      });
      expect(smtp.mails.length).toBe(sent);
    });

    it('keeps to the domain whitelist when EmailDomainRestrictionEnabled', async () => {
      await setOptions({
        EmailDomainWhitelist: 'corp.test, example.org',
        EmailDomainRestrictionEnabled: 'true',
      });
      try {
        expect((await client().get(`/api/verification?email=${unique()}@gmail.com`)).body).toEqual({
          success: false,
          message:
            'the administrator has enabled an email domain whitelist, and the domain of your address is not in it',
        });
        expect((await client().get(`/api/verification?email=${unique()}@evilcorp.test`)).body.success).toBe(
          false,
        );
        const email = `${unique()}@corp.test`;
        expect((await client().get(`/api/verification?email=${email}`)).body.success).toBe(true);
        expect(codeIn(await smtp.next(email))).toMatch(/^[0-9a-f]{6}$/);
      } finally {
        await setOptions({ EmailDomainRestrictionEnabled: 'false' });
      }
    });

    it('answers the mail error: not configured, or refused by the server', async () => {
      await setOptions({ SMTPServer: '' });
      expect((await client().get(`/api/verification?email=${address()}`)).body).toEqual({
        success: false,
        message: 'SMTP is not configured',
      });
      await setOptions({ SMTPServer: smtp.host });
      smtp.refuseRecipients = true;
      const refused = await client().get(`/api/verification?email=${address()}`);
      expect(refused.body.success).toBe(false);
      expect(refused.body.message).toMatch(/^failed to send email: .*550/);
    });
  });

  describe('GET /api/oauth/email/bind', () => {
    it('binds the address whose mailed code the signed-in user gives, once', async () => {
      const user = await passwordUser();
      const browser = client();
      await browser.login(user.username, 'password123');
      const email = address('bind');
      const code = await sendCode(email, browser);
      expect((await browser.get(`/api/oauth/email/bind?email=${email}&code=ffffff`)).body).toEqual(
        CODE_WRONG,
      );
      expect((await browser.get(`/api/oauth/email/bind?email=${email}&code=${code}`)).body).toEqual({
        success: true,
        message: '',
      });
      expect((await userByName(user.username)).email).toBe(email);
      expect((await browser.get(`/api/oauth/email/bind?email=${email}&code=${code}`)).body).toEqual(
        CODE_WRONG,
      );
    });

    it('refuses an address another user took in the meantime, keeping the code', async () => {
      const email = address('race');
      const code = await sendCode(email);
      const user = await passwordUser();
      const browser = client();
      await browser.login(user.username, 'password123');
      const squatter = await passwordUser(email);
      expect((await browser.get(`/api/oauth/email/bind?email=${email}&code=${code}`)).body).toEqual({
        success: false,
        message: 'the email address is already taken',
      });
      await db().updateTable('users').set({ email: '' }).where('id', '=', squatter.id).execute();
      expect((await browser.get(`/api/oauth/email/bind?email=${email}&code=${code}`)).body.success).toBe(
        true,
      );
    });

    it('refuses a caller who is not signed in (401) or banned', async () => {
      const email = address();
      expect((await client().get(`/api/oauth/email/bind?email=${email}&code=abcdef`)).status).toBe(401);
      const user = await passwordUser();
      const browser = client();
      await browser.login(user.username, 'password123');
      await db().updateTable('users').set({ status: 2 }).where('id', '=', user.id).execute();
      expect((await browser.get(`/api/oauth/email/bind?email=${email}&code=abcdef`)).body).toEqual({
        success: false,
        message: 'the user is banned',
      });
    });
  });

  describe('password reset', () => {
    it('mails a link to <ServerAddress>/user/reset whose token sets a new 12-hex password, once', async () => {
      const email = address('reset');
      const user = await passwordUser(email);
      expect((await client().get(`/api/reset_password?email=${email}`)).body).toEqual({
        success: true,
        message: '',
      });
      const mail = await smtp.next(email);
      expect(mail.subject).toBe('Sluice Test password reset');
      expect(mail.body).toContain(`Name ${user.username}`);
      const link = linkIn(mail);
      expect(`${link.origin}${link.pathname}`).toBe('https://gateway.example.com/user/reset');
      expect(link.searchParams.get('email')).toBe(email);
      const token = link.searchParams.get('token') ?? '';
      expect(token).toMatch(/^[0-9a-f]{32}$/);

      const reset = await client().post('/api/user/reset', { email, token });
      expect(reset.body.success).toBe(true);
      const password = reset.body.data as string;
      expect(password).toMatch(/^[0-9a-f]{12}$/);
      expect(
        (await client().post('/api/user/login', { username: user.username, password })).body.success,
      ).toBe(true);
      expect(
        (await client().post('/api/user/login', { username: user.username, password: 'password123' })).body
          .success,
      ).toBe(false);
      expect((await client().post('/api/user/reset', { email, token })).body).toEqual({
        success: false,
        message: 'the reset link is invalid or has expired',
      });
    });

    it('refuses an expired link, a wrong token and a bad body', async () => {
      const email = address('old');
      await passwordUser(email);
      await client().get(`/api/reset_password?email=${email}`);
      const token = linkIn(await smtp.next(email)).searchParams.get('token') ?? '';
      const invalid = { success: false, message: 'the reset link is invalid or has expired' };
      expect((await client().post('/api/user/reset', { email, token: 'f'.repeat(32) })).body).toEqual(
        invalid,
      );
      await db().updateTable('sluice_codes').set({ expires_at: 1 }).where('key', '=', email).execute();
      expect((await client().post('/api/user/reset', { email, token })).body).toEqual(invalid);
      expect((await client().post('/api/user/reset', { email })).body.message).toMatch(/^invalid parameter/);
      expect((await client().post('/api/user/reset', '{', { raw: true })).body.message).toMatch(
        /^invalid parameter/,
      );
    });

    it('refuses an address nobody registered, mailing nothing', async () => {
      const sent = smtp.mails.length;
      expect((await client().get(`/api/reset_password?email=${address('nobody')}`)).body).toEqual({
        success: false,
        message: 'this email address is not registered',
      });
      expect(smtp.mails.length).toBe(sent);
    });
  });

  describe('the Turnstile check', () => {
    beforeEach(async () => {
      await setOptions({ TurnstileCheckEnabled: 'true' });
    });

    it('requires a token, refuses a bad one, and remembers a pass in the session', async () => {
      const browser = client();
      const email = address('ts');
      expect((await browser.get(`/api/verification?email=${email}`)).body).toEqual({
        success: false,
        message: 'Turnstile token is empty',
      });
      expect((await browser.get(`/api/verification?email=${email}&turnstile=forged`)).body).toEqual({
        success: false,
        message: 'Turnstile check failed, refresh and retry',
      });
      const calls = turnstile.calls.length;
      const pass = await browser.get(`/api/verification?email=${email}&turnstile=${turnstile.solve()}`);
      expect(pass.body).toEqual({ success: true, message: '' });
      expect(turnstile.calls.at(-1)).toMatchObject({ secret: turnstile.secret });
      expect(turnstile.calls.length).toBe(calls + 1);
      const code = codeIn(await smtp.next(email));
      // The same session passes without a token and without another siteverify call.
      const username = unique('ts');
      expect((await register(browser, username, email, code)).body).toEqual({ success: true, message: '' });
      expect(turnstile.calls.length).toBe(calls + 1);
      // Another browser must pass the check itself.
      expect((await register(client(), unique('ts'), email, code)).body).toEqual({
        success: false,
        message: 'Turnstile token is empty',
      });
    });

    it('guards the password reset mail and registration too', async () => {
      const email = address('tsr');
      await passwordUser(email);
      expect((await client().get(`/api/reset_password?email=${email}`)).body.message).toBe(
        'Turnstile token is empty',
      );
      expect(
        (await client().get(`/api/reset_password?email=${email}&turnstile=${turnstile.solve()}`)).body
          .success,
      ).toBe(true);
      await setOptions({ EmailVerificationEnabled: 'false' });
      const username = unique('tsg');
      const body = { username, password: 'password123', password2: 'password123' };
      expect((await client().post('/api/user/register', body)).body.message).toBe('Turnstile token is empty');
      expect(
        (await client().post(`/api/user/register?turnstile=used-${turnstile.solve()}`, body)).body.message,
      ).toBe('Turnstile check failed, refresh and retry');
      expect((await client().post(`/api/user/register?turnstile=${turnstile.solve()}`, body)).body).toEqual({
        success: true,
        message: '',
      });
    });

    it('is not consulted while TurnstileCheckEnabled is false', async () => {
      await setOptions({ TurnstileCheckEnabled: 'false' });
      const calls = turnstile.calls.length;
      expect((await client().get(`/api/verification?email=${address('off')}`)).body.success).toBe(true);
      expect(turnstile.calls.length).toBe(calls);
    });
  });
});
