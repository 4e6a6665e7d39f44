import type { AuditRow } from '@sluice/contract/schemas/audit';
import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TWO_FACTOR_LOCKED, TWO_FACTOR_REPLAYED, TWO_FACTOR_WRONG } from '../services/two-factor-service.js';
import { apiClient, type ApiClient } from '../test-support/api-client.js';
import { FIXTURE_PASSWORD, signInNewUser, signInRoot } from '../test-support/log-fixtures.js';
import { testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { NOT_LOGGED_IN, TWO_FACTOR_REQUIRED } from './middleware/auth.js';
import { SIGN_IN_EXPIRED } from './sign-in-flow.js';

/** The code an authenticator app shows `steps` periods of 30 s from now. */
const codeOf = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

/** Moves the clock (Date only: the databases' timers run as they do). */
const advance = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

describe.each(testDialects())('two-factor sign-in with TOTP on %s', (dialect) => {
  let test: TestSluice;
  let root: ApiClient;
  beforeAll(async () => {
    test = await startTestSluice(dialect);
    root = await signInRoot(test);
  });
  afterAll(() => test?.close());
  afterEach(() => {
    vi.useRealTimers();
  });
  const fakeClock = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });

  /** A user with TOTP on: its secret and its recovery codes. */
  const withTotp = async (username: string, role = 1) => {
    const user = await signInNewUser(test, username, role);
    const setup = await user.client.post('/api/user/2fa/totp/setup');
    const { secret, uri, qr_svg } = setup.body.data as { secret: string; uri: string; qr_svg: string };
    expect(uri).toMatch(new RegExp(`^otpauth://totp/Sluice:${username}\\?`));
    expect(uri).toContain(`secret=${secret}`);
    expect(qr_svg).toMatch(/^<svg/);
    expect((await user.client.post('/api/user/2fa/totp/enable', { code: '000000' })).body).toMatchObject({
      success: false,
    });
    const enabled = await user.client.post('/api/user/2fa/totp/enable', { code: codeOf(secret) });
    const codes = (enabled.body.data as { recovery_codes: string[] }).recovery_codes;
    return { ...user, secret, codes };
  };
  const passwordStep = async (username: string) => {
    const browser = apiClient(test.sluice.app);
    const first = await browser.post('/api/user/login', { username, password: FIXTURE_PASSWORD });
    return { browser, first };
  };

  it('turns TOTP on with a first code and gives ten single-use recovery codes', async () => {
    const user = await withTotp('alice');
    expect(user.codes).toHaveLength(10);
    expect(new Set(user.codes).size).toBe(10);
    expect(user.codes[0]).toMatch(/^[A-Z2-9]{4}(-[A-Z2-9]{4}){3}$/);
    expect((await user.client.get('/api/user/2fa')).body.data).toEqual({
      totp: true,
      recovery_codes: 10,
      passkeys: 0,
      required: false,
    });
    const stored = await test.sluice.database.db.selectFrom('sluice_recovery_codes').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(user.codes[0]?.replaceAll('-', ''));
    expect((await user.client.post('/api/user/2fa/totp/setup')).body.message).toBe(
      'two-factor authentication is already on',
    );
  });

  it('signs in with password and a code computed here; the session is refused everything before it', async () => {
    fakeClock();
    const user = await withTotp('bob');
    const { browser, first } = await passwordStep('bob');
    expect(first.body.data).toEqual({ require_2fa: true, totp: true, passkey: false });
    for (const path of ['/api/user/self', '/api/token/', '/api/user/2fa'])
      expect((await browser.get(path)).body).toEqual({ success: false, message: NOT_LOGGED_IN });
    advance(30);
    const code = codeOf(user.secret);
    const second = await browser.post('/api/user/login/2fa', { code });
    expect(second.body.data).toMatchObject({ username: 'bob', role: 1 });
    expect((await browser.get('/api/user/self')).body.data).toMatchObject({ username: 'bob' });

    const again = await passwordStep('bob');
    expect((await again.browser.post('/api/user/login/2fa', { code })).body.message).toBe(
      TWO_FACTOR_REPLAYED,
    );
    expect((await again.browser.get('/api/user/self')).status).toBe(401);

    const audit = (await root.get('/api/audit/?object_type=session&username=bob')).body.data as AuditRow[];
    expect(audit.map((row) => [row.action, row.detail])).toEqual([
      ['sign_in_failed', `password+totp: ${TWO_FACTOR_REPLAYED}`],
      ['sign_in', 'password+totp'],
      ['sign_in', 'password'],
    ]);
  });

  it('locks two-factor sign-in for 15 minutes after five wrong codes', async () => {
    fakeClock();
    const user = await withTotp('carol');
    const { browser } = await passwordStep('carol');
    const answers: string[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1)
      answers.push((await browser.post('/api/user/login/2fa', { code: '123456' })).body.message ?? '');
    expect(answers).toEqual([...Array<string>(4).fill(TWO_FACTOR_WRONG), TWO_FACTOR_LOCKED]);
    advance(30);
    expect((await browser.post('/api/user/login/2fa', { code: codeOf(user.secret) })).body.message).toBe(
      TWO_FACTOR_LOCKED,
    );
    expect((await browser.post('/api/user/login/2fa', { code: user.codes[0] })).body.message).toBe(
      TWO_FACTOR_LOCKED,
    );
    advance(15 * 60);
    const later = await passwordStep('carol');
    const signedIn = await later.browser.post('/api/user/login/2fa', { code: codeOf(user.secret) });
    expect(signedIn.body.data).toMatchObject({ username: 'carol' });
  });

  it('takes a recovery code once, in any case and spacing', async () => {
    const user = await withTotp('dave');
    const code = user.codes[3] ?? '';
    const first = await passwordStep('dave');
    const typed = ` ${code.toLowerCase().replaceAll('-', ' ')} `;
    expect((await first.browser.post('/api/user/login/2fa', { code: typed })).body.data).toMatchObject({
      username: 'dave',
    });
    const second = await passwordStep('dave');
    expect((await second.browser.post('/api/user/login/2fa', { code })).body.message).toBe(TWO_FACTOR_WRONG);
    expect((await user.client.get('/api/user/2fa')).body.data).toMatchObject({ recovery_codes: 9 });
  });

  it('lets a pending sign-in expire after five minutes', async () => {
    fakeClock();
    const user = await withTotp('erin');
    const { browser } = await passwordStep('erin');
    advance(301);
    expect((await browser.post('/api/user/login/2fa', { code: codeOf(user.secret) })).body.message).toBe(
      SIGN_IN_EXPIRED,
    );
    expect(
      (await apiClient(test.sluice.app).post('/api/user/login/2fa', { code: '123456' })).body.message,
    ).toBe(SIGN_IN_EXPIRED);
  });

  it('turns TOTP off and renews recovery codes only for a current code', async () => {
    fakeClock();
    const user = await withTotp('frank');
    expect((await user.client.post('/api/user/2fa/recovery_codes', { code: '654321' })).body.success).toBe(
      false,
    );
    advance(30);
    const renewed = await user.client.post('/api/user/2fa/recovery_codes', { code: codeOf(user.secret) });
    const fresh = (renewed.body.data as { recovery_codes: string[] }).recovery_codes;
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(user.codes[0]);
    expect((await user.client.post('/api/user/2fa/totp/disable', { code: user.codes[0] })).body.success).toBe(
      false,
    );
    expect((await user.client.post('/api/user/2fa/totp/disable', { code: fresh[0] })).body).toEqual({
      success: true,
      message: '',
    });
    expect((await passwordStep('frank')).first.body.data).toMatchObject({ username: 'frank' });
    const own = (await root.get('/api/audit/?object_type=two_factor&username=frank')).body.data as AuditRow[];
    expect(own.map((row) => row.action)).toEqual(['disable', 'enable']);
  });

  it('lets an administrator reset a user’s second factor, not one of the same or a higher level', async () => {
    const user = await withTotp('gina');
    const admin = await signInNewUser(test, 'gadmin', 10);
    expect((await admin.client.delete('/api/user/1/2fa')).body.message).toBe(
      'no permission to update users of the same or higher level',
    );
    expect((await admin.client.delete(`/api/user/${user.id}/2fa`)).body.success).toBe(true);
    expect((await passwordStep('gina')).first.body.data).toMatchObject({ username: 'gina' });
    const [reset] = (await root.get('/api/audit/?object_type=two_factor&action=reset')).body
      .data as AuditRow[];
    expect(reset).toMatchObject({ username: 'gadmin', object_id: String(user.id) });
    expect(JSON.parse(reset?.before ?? '')).toEqual({ totp: true, recovery_codes: 10, passkeys: [] });
    expect(JSON.parse(reset?.after ?? '')).toEqual({ totp: false, recovery_codes: 0, passkeys: [] });
  });

  it('requires a second factor of administrators when the option is on, never of access tokens', async () => {
    const admin = await signInNewUser(test, 'hadmin', 10);
    await test.sluice.database.db
      .updateTable('users')
      .set({ access_token: 'hadmin-access-token-0000000000ab' })
      .where('id', '=', admin.id)
      .execute();
    expect(
      (await admin.client.put('/api/option/', { key: 'TwoFactorRequiredForAdmins', value: 'true' })).body,
    ).toMatchObject({ success: false });
    expect(
      (await root.put('/api/option/', { key: 'TwoFactorRequiredForAdmins', value: 'true' })).body.success,
    ).toBe(true);
    try {
      expect((await admin.client.get('/api/channel/')).body).toEqual({
        success: false,
        message: TWO_FACTOR_REQUIRED,
      });
      expect((await admin.client.get('/api/user/self')).body.success).toBe(true);
      expect((await admin.client.get('/api/user/2fa')).body.data).toMatchObject({
        totp: false,
        required: true,
      });
      const token = { headers: { authorization: 'Bearer hadmin-access-token-0000000000ab' } };
      expect((await apiClient(test.sluice.app).get('/api/channel/', token)).body.success).toBe(true);
      const common = await signInNewUser(test, 'hcommon');
      expect((await common.client.get('/api/token/')).body.success).toBe(true);

      const setup = (await admin.client.post('/api/user/2fa/totp/setup')).body.data as { secret: string };
      await admin.client.post('/api/user/2fa/totp/enable', { code: codeOf(setup.secret) });
      expect((await admin.client.get('/api/channel/')).body.success).toBe(true);
      // Root has no second factor either: its session is refused too until it sets one up.
      expect((await root.get('/api/channel/')).body.message).toBe(TWO_FACTOR_REQUIRED);
    } finally {
      await test.sluice.services.options.update('TwoFactorRequiredForAdmins', 'false');
    }
  });
});
