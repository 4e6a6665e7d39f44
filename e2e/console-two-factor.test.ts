import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PASSWORD, signInNewUser } from '../server/src/test-support/log-fixtures.js';
import { MOBILE, loginThroughForm, startHarness, toastTexts, type Harness } from './support/harness.js';

/** The code an authenticator app shows `steps` periods of 30 s from now. */
const codeOf = (secret: string, steps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + steps * 30_000 });

/** TOTP in Chromium: turned on from the personal settings, a sign-in with a code, 390 px and zh, an admin's reset. */
describe('console: two-factor sign-in', () => {
  let harness: Harness;
  let secret = '';
  let recoveryCodes: string[] = [];
  beforeAll(async () => {
    harness = await startHarness();
    await signInNewUser(harness.test, 'totpuser');
  });
  afterAll(async () => {
    await harness?.close();
  });

  const signOut = async (page: Page) => {
    await page.getByTestId('user-menu').click();
    await page.getByTestId('logout').click();
    await page.waitForURL('**/login');
  };

  it('turns TOTP on from the personal settings and shows the recovery codes once', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'totpuser', FIXTURE_PASSWORD);
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.goto('/setting');
    await page.getByTestId('two-factor-state').filter({ hasText: 'Off' }).waitFor();
    await page.getByTestId('two-factor-on').click();
    await page.getByTestId('totp-qr').waitFor();
    expect(await page.getByTestId('totp-qr').getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    secret = (await page.getByTestId('totp-secret').innerText()).trim();
    await page.getByTestId('totp-code').fill('000000');
    await page.getByTestId('totp-enable').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('the two-factor code is wrong'));
    await page.getByTestId('totp-code').fill(codeOf(secret));
    await page.getByTestId('totp-enable').click();
    await expect.poll(() => page.getByTestId('recovery-code').count()).toBe(10);
    recoveryCodes = await page.getByTestId('recovery-code').allInnerTexts();
    await page.getByTestId('recovery-codes-done').click();
    await page.getByTestId('two-factor-state').filter({ hasText: 'On' }).waitFor();
    await page.getByTestId('two-factor-codes-left').filter({ hasText: '10 recovery codes left' }).waitFor();
    await signOut(page);

    await loginThroughForm(page, 'totpuser', FIXTURE_PASSWORD);
    await page.getByTestId('second-factor-code').fill(codeOf(secret, 1));
    await page.getByTestId('second-factor-submit').click();
    await page.waitForURL('**/token');
    await expect.poll(() => page.evaluate(() => localStorage.getItem('user'))).toContain('totpuser');
  });

  it('asks for the code in Chinese at 390 px, and takes a recovery code', async () => {
    const page = await harness.newPage({ viewport: MOBILE, locale: 'zh-CN' });
    await loginThroughForm(page, 'totpuser', FIXTURE_PASSWORD);
    await page.getByText('此账户已开启两步验证。').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await page.getByTestId('second-factor-code').fill('111111');
    await page.getByTestId('second-factor-submit').click();
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('两步验证码错误'));
    await page.getByTestId('second-factor-code').fill(recoveryCodes[0] ?? '');
    await page.getByTestId('second-factor-submit').click();
    await page.waitForURL('**/token');
  });

  it('lets root reset the user’s second factor from the user form', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    const { id } = await harness.test.sluice.database.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'totpuser')
      .executeTakeFirstOrThrow();
    await page.goto(`/user/edit/${id}`);
    await page.getByTestId('user-reset-2fa').click();
    await page.getByTestId('confirm').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Two-factor authentication reset.'));
    await signOut(page);
    await loginThroughForm(page, 'totpuser', FIXTURE_PASSWORD);
    await page.waitForURL('**/token');
    expect(await page.getByTestId('second-factor').count()).toBe(0);
  });
});
