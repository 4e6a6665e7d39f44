import { LOG_TYPE } from '@sluice/contract/statuses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { testDialects } from '../test-support/test-databases.js';

const NOT_LOGGED_IN = { success: false, message: 'no permission: not logged in and no access token' };
const BANNED = { success: false, message: 'the user is banned' };
const INVALID_TOKEN = { success: false, message: 'no permission: the access token is invalid' };

/** Booleans come back as 0/1 from SQLite and MySQL, true/false from PostgreSQL. */
const isTrue = (value: unknown): boolean => value === true || value === 1;

describe.each(testDialects())('account routes (/api/user) on %s', (dialect) => {
  let test: TestSluice;
  let serial = 0;
  /** A fresh username of at most 12 characters. */
  const fresh = (prefix = 'u') => `${prefix}${(serial += 1)}x${dialect.slice(0, 2)}`;

  const db = () => test.sluice.database.db;
  const client = (): ApiClient => apiClient(test.sluice.app);

  const count = async (table: 'users' | 'tokens' | 'logs'): Promise<number> => {
    const row = await db()
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  const userByName = (username: string) =>
    db().selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();

  const userById = (id: number) =>
    db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  const logsOf = (userId: number) =>
    db().selectFrom('logs').selectAll().where('user_id', '=', userId).orderBy('id').execute();

  const tokensOf = (userId: number) =>
    db().selectFrom('tokens').selectAll().where('user_id', '=', userId).orderBy('id').execute();

  const setOptions = async (values: Record<string, string>) => {
    for (const [key, value] of Object.entries(values)) await test.sluice.services.options.update(key, value);
  };

  /** Registers through the API and answers the new row. */
  const register = async (username: string, password = 'password123', extra: Record<string, string> = {}) => {
    const response = await client().post('/api/user/register', {
      username,
      password,
      password2: password,
      ...extra,
    });
    expect(response.body).toEqual({ success: true, message: '' });
    const row = await userByName(username);
    if (!row) throw new Error(`user ${username} was not created`);
    return row;
  };

  /** A registered user and a browser logged in as them. */
  const signedInUser = async (password = 'password123') => {
    const username = fresh();
    const row = await register(username, password);
    const browser = client();
    await browser.login(username, password);
    return { username, password, row, browser };
  };

  beforeAll(async () => {
    test = await startTestSluice(dialect);
  });
  afterAll(() => test?.close());

  beforeEach(async () => {
    await setOptions({
      RegisterEnabled: 'true',
      PasswordRegisterEnabled: 'true',
      EmailVerificationEnabled: 'false',
      QuotaForNewUser: '0',
      QuotaForInviter: '0',
      QuotaForInvitee: '0',
    });
  });

  describe('POST /api/user/register', () => {
    it('creates a common, enabled user with QuotaForNewUser and a system log of the gift', async () => {
      await setOptions({ QuotaForNewUser: '100' });
      const username = fresh('new');
      const before = await count('users');
      const row = await register(username, 'password123');
      expect(await count('users')).toBe(before + 1);
      expect(row).toMatchObject({
        username,
        display_name: username,
        role: 1,
        status: 1,
        quota: 100,
        used_quota: 0,
        request_count: 0,
        group: 'default',
        inviter_id: 0,
        email: '',
      });
      expect(row.password).toMatch(/^\$2[aby]\$10\$/);
      expect(row.password).not.toContain('password123');
      expect(row.access_token).toMatch(/^[0-9a-f]{32}$/);
      expect(row.aff_code).toMatch(/^[0-9a-zA-Z]{4}$/);
      const logs = await logsOf(row.id);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ type: LOG_TYPE.system, user_id: row.id, username });
      expect(logs[0]!.content).toMatch(/^new user registration gift /);
      // The new user can log in with the password chosen.
      await client().login(username, 'password123');
    });

    it('writes no gift log when QuotaForNewUser is 0', async () => {
      const row = await register(fresh('nogift'));
      expect(row.quota).toBe(0);
      expect(await logsOf(row.id)).toEqual([]);
    });

    it("creates an unlimited, never-expiring token named 'default' with a 48-character key", async () => {
      const row = await register(fresh('tok'));
      const tokens = await tokensOf(row.id);
      expect(tokens).toHaveLength(1);
      const token = tokens[0]!;
      expect(token).toMatchObject({
        user_id: row.id,
        name: 'default',
        status: 1,
        expired_time: -1,
        remain_quota: -1,
      });
      expect(isTrue(token.unlimited_quota)).toBe(true);
      expect(token.key).toMatch(/^[0-9a-zA-Z]{48}$/);
      expect(token.key.startsWith('sk-')).toBe(false);
    });

    it('rewards both sides of an invite (aff_code) and logs each reward', async () => {
      await setOptions({ QuotaForNewUser: '100', QuotaForInviter: '30', QuotaForInvitee: '20' });
      const inviter = await signedInUser();
      const affCode = (await inviter.browser.get('/api/user/aff')).body.data as string;
      expect(affCode).toBe(inviter.row.aff_code);
      const invitee = await register(fresh('inv'), 'password123', { aff_code: affCode });
      expect(invitee.inviter_id).toBe(inviter.row.id);
      expect(invitee.quota).toBe(120);
      expect((await userById(inviter.row.id)).quota).toBe(130);
      const inviteeLogs = await logsOf(invitee.id);
      expect(inviteeLogs.map((log) => log.type)).toEqual([4, 4]);
      expect(inviteeLogs.map((log) => log.content)).toEqual([
        expect.stringMatching(/^new user registration gift /),
        expect.stringMatching(/^gift for using an invite code /),
      ]);
      const inviterLogs = await logsOf(inviter.row.id);
      expect(inviterLogs.map((log) => log.content)).toEqual([
        expect.stringMatching(/^new user registration gift /),
        expect.stringMatching(/^gift for inviting a user /),
      ]);
      expect(inviterLogs[1]).toMatchObject({ type: LOG_TYPE.system, username: inviter.username });
    });

    it('ignores an aff_code that belongs to nobody', async () => {
      await setOptions({ QuotaForInviter: '30', QuotaForInvitee: '20' });
      const row = await register(fresh('noinv'), 'password123', { aff_code: 'zzzz' });
      expect(row.inviter_id).toBe(0);
      expect(row.quota).toBe(0);
    });

    it('refuses when RegisterEnabled is false, writing nothing', async () => {
      await setOptions({ RegisterEnabled: 'false' });
      const username = fresh('closed');
      const before = await count('users');
      const response = await client().post('/api/user/register', { username, password: 'password123' });
      expect(response.body).toEqual({
        success: false,
        message: 'the administrator has closed new-user registration',
      });
      expect(await count('users')).toBe(before);
      expect(await userByName(username)).toBeUndefined();
    });

    it('refuses when PasswordRegisterEnabled is false, writing nothing', async () => {
      await setOptions({ PasswordRegisterEnabled: 'false' });
      const username = fresh('closed');
      const before = await count('users');
      const response = await client().post('/api/user/register', { username, password: 'password123' });
      expect(response.body).toEqual({
        success: false,
        message: 'the administrator has closed password registration; use a third-party account',
      });
      expect(await count('users')).toBe(before);
    });

    it('saves the email only when email verification is on', async () => {
      const row = await register(fresh('mail'), 'password123', { email: 'nobody@example.com' });
      expect(row.email).toBe('');
    });

    describe('with EmailVerificationEnabled', () => {
      beforeEach(async () => {
        await setOptions({ EmailVerificationEnabled: 'true' });
      });

      it('requires both the email and the code', async () => {
        const before = await count('users');
        const required = 'email verification is on: enter your email and the verification code';
        const noCode = await client().post('/api/user/register', {
          username: fresh('ev'),
          password: 'password123',
          email: 'a@example.com',
        });
        expect(noCode.body).toEqual({ success: false, message: required });
        const noEmail = await client().post('/api/user/register', {
          username: fresh('ev'),
          password: 'password123',
          verification_code: 'abc123',
        });
        expect(noEmail.body).toEqual({ success: false, message: required });
        expect(await count('users')).toBe(before);
      });

      it('refuses a wrong code, accepts the right one once, and saves the email', async () => {
        const email = `${fresh('ev')}@example.com`;
        await test.sluice.services.codes.put('verify', email, 'c0ffee');
        const before = await count('users');
        const wrongMessage = 'the verification code is wrong or has expired';

        const wrong = await client().post('/api/user/register', {
          username: fresh('ev'),
          password: 'password123',
          email,
          verification_code: 'bad000',
        });
        expect(wrong.body).toEqual({ success: false, message: wrongMessage });
        expect(await count('users')).toBe(before);

        const otherEmail = await client().post('/api/user/register', {
          username: fresh('ev'),
          password: 'password123',
          email: 'someone-else@example.com',
          verification_code: 'c0ffee',
        });
        expect(otherEmail.body).toEqual({ success: false, message: wrongMessage });

        const username = fresh('ev');
        const row = await register(username, 'password123', { email, verification_code: 'c0ffee' });
        expect(row.email).toBe(email);

        const again = await client().post('/api/user/register', {
          username: fresh('ev'),
          password: 'password123',
          email,
          verification_code: 'c0ffee',
        });
        expect(again.body).toEqual({ success: false, message: wrongMessage });
        expect(await count('users')).toBe(before + 1);
      });

      it('keeps the code when the registration is refused for a taken username', async () => {
        const email = `${fresh('tk')}@example.com`;
        await test.sluice.services.codes.put('verify', email, 'beef42');
        const before = await count('users');
        const refused = await client().post('/api/user/register', {
          username: 'root',
          password: 'password123',
          email,
          verification_code: 'beef42',
        });
        expect(refused.body).toEqual({ success: false, message: 'username already taken' });
        expect(await count('users')).toBe(before);
        const row = await register(fresh('tk'), 'password123', { email, verification_code: 'beef42' });
        expect(row.email).toBe(email);
      });

      it('refuses an expired code', async () => {
        const email = `${fresh('ex')}@example.com`;
        await test.sluice.services.codes.put('verify', email, 'dead01', -1);
        const before = await count('users');
        const response = await client().post('/api/user/register', {
          username: fresh('ex'),
          password: 'password123',
          email,
          verification_code: 'dead01',
        });
        expect(response.body).toEqual({
          success: false,
          message: 'the verification code is wrong or has expired',
        });
        expect(await count('users')).toBe(before);
      });
    });

    it('refuses a taken username with a clear message, writing nothing', async () => {
      const username = fresh('dup');
      const first = await register(username);
      const users = await count('users');
      const tokens = await count('tokens');
      const response = await client().post('/api/user/register', { username, password: 'another-pass1' });
      expect(response.body).toEqual({ success: false, message: 'username already taken' });
      expect(await count('users')).toBe(users);
      expect(await count('tokens')).toBe(tokens);
      // The first user keeps its password.
      expect((await userById(first.id)).password).toBe(first.password);
      const root = await client().post('/api/user/register', { username: 'root', password: 'password123' });
      expect(root.body).toEqual({ success: false, message: 'username already taken' });
    });

    const badBodies: readonly [string, unknown, RegExp][] = [
      [
        'a numeric username',
        { username: 12345, password: 'password123' },
        /^invalid parameter: username: .*expected string, received number$/,
      ],
      [
        'a numeric password',
        { username: 'numpass', password: 12345678 },
        /^invalid parameter: password: .*expected string, received number$/,
      ],
      [
        'a boolean aff_code',
        { username: 'boolaff', password: 'password123', aff_code: true },
        /^invalid parameter: aff_code: .*expected string, received boolean$/,
      ],
      ['a missing password', { username: 'nopass' }, /^invalid parameter: password: .*received undefined$/],
      [
        'a missing username',
        { password: 'password123' },
        /^invalid parameter: username: .*received undefined$/,
      ],
      [
        'a blank username',
        { username: '   ', password: 'password123' },
        /^invalid parameter: username: username is required$/,
      ],
      [
        'a 13-character username',
        { username: 'abcdefghijklm', password: 'password123' },
        /^invalid parameter: username: username must be at most 12 characters$/,
      ],
      [
        'a 7-character password',
        { username: 'shortpw', password: 'pass123' },
        /^invalid parameter: password: password must be 8-20 characters$/,
      ],
      [
        'a 21-character password',
        { username: 'longpw', password: 'p'.repeat(21) },
        /^invalid parameter: password: password must be 8-20 characters$/,
      ],
      [
        'a 100 kB username',
        { username: 'u'.repeat(100_000), password: 'password123' },
        /^invalid parameter: username: username must be at most 12 characters$/,
      ],
      [
        'a 51-character email',
        { username: 'bigmail', password: 'password123', email: `${'e'.repeat(39)}@example.com` },
        /^invalid parameter: email: .*<=50 characters$/,
      ],
      [
        'an oversize aff_code',
        { username: 'bigaff', password: 'password123', aff_code: 'a'.repeat(33) },
        /^invalid parameter: aff_code: .*<=32 characters$/,
      ],
      [
        'an oversize verification_code',
        { username: 'bigcode', password: 'password123', verification_code: 'c'.repeat(65) },
        /^invalid parameter: verification_code: .*<=64 characters$/,
      ],
      [
        'an oversize password2',
        { username: 'bigpw2', password: 'password123', password2: 'p'.repeat(129) },
        /^invalid parameter: password2: .*<=128 characters$/,
      ],
      [
        'an array body',
        [{ username: 'arr', password: 'password123' }],
        /^invalid parameter: .*expected object/,
      ],
      ['a null body', null, /^invalid parameter: .*expected object/],
    ];

    it.each(badBodies)('refuses %s with a clear message and writes no row', async (_label, body, message) => {
      const users = await count('users');
      const tokens = await count('tokens');
      const response = await client().post('/api/user/register', body);
      expect(response.status).toBe(200);
      expect(response.body.success).toBe(false);
      expect(response.body.message).toMatch(message);
      expect(await count('users')).toBe(users);
      expect(await count('tokens')).toBe(tokens);
    });

    it('refuses a body that is not JSON, writing nothing', async () => {
      const users = await count('users');
      const response = await client().post('/api/user/register', '{"username": "broken', { raw: true });
      expect(response.body).toEqual({
        success: false,
        message: 'invalid parameter: the body must be valid JSON',
      });
      expect(await count('users')).toBe(users);
    });
  });

  describe('GET /api/user/self', () => {
    it('answers the own record with the access token and never the password hash', async () => {
      const { row, browser, username } = await signedInUser();
      const response = await browser.get('/api/user/self');
      expect(response.body.success).toBe(true);
      expect(response.body.data).toEqual({
        id: row.id,
        username,
        password: '',
        display_name: username,
        role: 1,
        status: 1,
        email: '',
        github_id: '',
        wechat_id: '',
        lark_id: '',
        oidc_id: '',
        verification_code: '',
        access_token: row.access_token,
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: 'default',
        aff_code: row.aff_code,
        inviter_id: 0,
        // Sluice's own: the user's rate limits and budgets (none set: null).
        rpm_limit: null,
        tpm_limit: null,
        concurrency_limit: null,
        budget_5h: null,
        budget_daily: null,
        budget_weekly: null,
        budget_monthly: null,
        quota_alert_threshold: null,
        token_alert_threshold: null,
      });
      expect(response.text).not.toContain(row.password);
    });
  });

  describe('PUT /api/user/self', () => {
    it('keeps the old password when the password is blank', async () => {
      const { row, browser, username, password } = await signedInUser();
      const response = await browser.put('/api/user/self', {
        username: '',
        display_name: 'Renamed',
        password: '',
      });
      expect(response.body).toEqual({ success: true, message: '' });
      const after = await userById(row.id);
      expect(after.password).toBe(row.password);
      expect(after.username).toBe(username);
      expect(after.display_name).toBe('Renamed');
      await client().login(username, password);
    });

    it('changes the password: the new one works and the old one no longer does', async () => {
      const { row, browser, username, password } = await signedInUser();
      const response = await browser.put('/api/user/self', { password: 'brand-new-pw1' });
      expect(response.body.success).toBe(true);
      expect((await userById(row.id)).password).not.toBe(row.password);
      const old = await client().post('/api/user/login', { username, password });
      expect(old.body.success).toBe(false);
      await client().login(username, 'brand-new-pw1');
    });

    it('changes the username', async () => {
      const { row, browser, password } = await signedInUser();
      const renamed = fresh('ren');
      expect((await browser.put('/api/user/self', { username: renamed })).body.success).toBe(true);
      expect((await userById(row.id)).username).toBe(renamed);
      await client().login(renamed, password);
    });

    it('refuses a username another user holds, changing nothing', async () => {
      const other = await register(fresh('own'));
      const { row, browser, username } = await signedInUser();
      const response = await browser.put('/api/user/self', {
        username: other.username,
        display_name: 'Clash',
      });
      expect(response.body).toEqual({ success: false, message: 'username already taken' });
      const after = await userById(row.id);
      expect(after.username).toBe(username);
      expect(after.display_name).toBe(username);
      const root = await browser.put('/api/user/self', { username: 'root' });
      expect(root.body).toEqual({ success: false, message: 'username already taken' });
    });

    it('allows keeping the own username', async () => {
      const { row, browser, username } = await signedInUser();
      const response = await browser.put('/api/user/self', { username, display_name: 'Same' });
      expect(response.body.success).toBe(true);
      expect((await userById(row.id)).display_name).toBe('Same');
    });

    it('can clear the display name', async () => {
      const { row, browser } = await signedInUser();
      expect((await browser.put('/api/user/self', { display_name: '' })).body.success).toBe(true);
      expect((await userById(row.id)).display_name).toBe('');
      expect((await browser.get('/api/user/self')).body.data).toMatchObject({ display_name: '' });
    });

    it('refuses bad input and changes nothing', async () => {
      const { row, browser } = await signedInUser();
      const cases: readonly [unknown, RegExp][] = [
        [{ password: 'short' }, /^invalid parameter: password: password must be 8-20 characters/],
        [{ password: 'p'.repeat(21) }, /^invalid parameter: password: password must be 8-20 characters/],
        [{ username: 'abcdefghijklm' }, /^invalid parameter: username: .*at most 12 characters/],
        [{ display_name: 'd'.repeat(21) }, /^invalid parameter: display_name: .*at most 20 characters/],
        [{ username: 42 }, /^invalid parameter: username/],
        [{ display_name: null }, /^invalid parameter: display_name/],
      ];
      for (const [body, message] of cases) {
        const response = await browser.put('/api/user/self', body);
        expect(response.body.success, JSON.stringify(body)).toBe(false);
        expect(response.body.message).toMatch(message);
      }
      expect(await userById(row.id)).toEqual(row);
    });
  });

  describe('DELETE /api/user/self', () => {
    it('refuses to delete root', async () => {
      const browser = client();
      await browser.login('root', '123456');
      const response = await browser.delete('/api/user/self');
      expect(response.body).toEqual({
        success: false,
        message: 'the super administrator account cannot be deleted',
      });
      expect(await userByName('root')).toMatchObject({ status: 1, role: 100 });
      expect((await browser.get('/api/user/self')).body.success).toBe(true);
    });

    it('soft-deletes a user: renamed, status 3, every session and the access token revoked', async () => {
      const { row, browser, username, password } = await signedInUser();
      const other = client();
      await other.login(username, password);
      const users = await count('users');
      const response = await browser.delete('/api/user/self');
      expect(response.body).toEqual({ success: true, message: '' });
      expect(await count('users')).toBe(users);
      const after = await userById(row.id);
      expect(after.username).toMatch(/^deleted_[0-9a-f]{32}$/);
      expect(after.status).toBe(3);
      expect(await userByName(username)).toBeUndefined();
      // Both browsers lose their session; the old access token is refused.
      expect((await browser.get('/api/user/self')).body).toEqual(NOT_LOGGED_IN);
      expect((await other.get('/api/user/self')).status).toBe(401);
      const byToken = await client().get('/api/user/self', {
        headers: { authorization: row.access_token ?? '' },
      });
      expect(byToken.body.success).toBe(false);
      // The user cannot log in again, and the name is free for someone else.
      expect((await client().post('/api/user/login', { username, password })).body.success).toBe(false);
      await register(username);
    });
  });

  describe('GET /api/user/token', () => {
    it('regenerates the access token: the old one stops working and the new one works', async () => {
      const { row, browser, username } = await signedInUser();
      const old = row.access_token ?? '';
      expect((await client().get('/api/user/self', { headers: { authorization: old } })).body.success).toBe(
        true,
      );
      const response = await browser.get('/api/user/token');
      expect(response.body.success).toBe(true);
      const token = response.body.data as string;
      expect(token).toMatch(/^[0-9a-f]{32}$/);
      expect(token).not.toBe(old);
      expect((await userById(row.id)).access_token).toBe(token);
      expect((await client().get('/api/user/self', { headers: { authorization: old } })).body).toEqual(
        INVALID_TOKEN,
      );
      const renewed = await client().get('/api/user/self', { headers: { authorization: `Bearer ${token}` } });
      expect(renewed.body.data).toMatchObject({ id: row.id, username });
    });
  });

  describe('GET /api/user/aff', () => {
    it('answers the stored 4-character code of a registered user, the same on every call', async () => {
      const { row, browser } = await signedInUser();
      const first = await browser.get('/api/user/aff');
      expect(first.body).toEqual({ success: true, message: '', data: row.aff_code });
      expect((await browser.get('/api/user/aff')).body.data).toBe(row.aff_code);
    });

    it('generates and stores a code for a user without one (root), then keeps it', async () => {
      const browser = client();
      await browser.login('root', '123456');
      const first = (await browser.get('/api/user/aff')).body.data as string;
      expect(first).toMatch(/^[0-9a-zA-Z]{4}$/);
      expect((await userByName('root'))?.aff_code).toBe(first);
      expect((await browser.get('/api/user/aff')).body.data).toBe(first);
    });
  });

  describe('the role gate', () => {
    const routes: readonly [string, string, unknown][] = [
      ['GET', '/api/user/self', undefined],
      ['PUT', '/api/user/self', { display_name: 'x' }],
      ['DELETE', '/api/user/self', undefined],
      ['GET', '/api/user/token', undefined],
      ['GET', '/api/user/aff', undefined],
    ];

    it.each(routes)('answers 401 to a logged-out %s %s', async (method, path, body) => {
      const users = await db().selectFrom('users').selectAll().orderBy('id').execute();
      const response = await client().request(method, path, body);
      expect(response.status).toBe(401);
      expect(response.body).toEqual(NOT_LOGGED_IN);
      expect(await db().selectFrom('users').selectAll().orderBy('id').execute()).toEqual(users);
    });

    it('refuses a disabled user with a live session or an access token, then ends the session', async () => {
      const { row, browser, username, password } = await signedInUser();
      expect((await browser.get('/api/user/self')).body.success).toBe(true);
      await db().updateTable('users').set({ status: 2 }).where('id', '=', row.id).execute();

      const bySession = await browser.get('/api/user/self');
      expect(bySession.status).toBe(200);
      expect(bySession.body).toEqual(BANNED);
      expect((await browser.put('/api/user/self', { display_name: 'sneaky' })).status).toBe(401);
      expect((await userById(row.id)).display_name).toBe(username);

      const token = row.access_token ?? '';
      expect((await client().get('/api/user/token', { headers: { authorization: token } })).body).toEqual(
        BANNED,
      );
      expect((await userById(row.id)).access_token).toBe(token);
      expect((await client().post('/api/user/login', { username, password })).body.success).toBe(false);

      // Enabling the user again lifts the ban at once.
      await db().updateTable('users').set({ status: 1 }).where('id', '=', row.id).execute();
      expect((await client().get('/api/user/self', { headers: { authorization: token } })).body.success).toBe(
        true,
      );
    });
  });
});
