import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../server/src/test-support/api-client.js';
import {
  MOBILE,
  inViewport,
  loginThroughForm,
  startHarness,
  toastTexts,
  type Harness,
} from './support/harness.js';

/** Root's first login, the 401 redirect, the not-found page, the mobile menu and the Chinese UI. */
describe('console: session, navigation and languages', () => {
  let harness: Harness;
  const newPassword = 'RootPass-2024';
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('warns root after a login with the default password, sends it to /user/edit, and takes a new one', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Please change the default password immediately!'));
    await page.getByTestId('user-edit').locator('input[name="username"][value="root"]').waitFor();
    await page.locator('input[name="password"]').fill(newPassword);
    await page.getByTestId('user-submit').click();
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('User info updated!'));

    await page.getByTestId('user-menu').click();
    await page.getByTestId('logout').click();
    await page.waitForURL('**/login');
    await expect.poll(() => page.evaluate(() => localStorage.getItem('user'))).toBeNull();

    await loginThroughForm(page, 'root', newPassword);
    await page.waitForURL('**/token');
    await page.getByTestId('token-page').waitFor();
    await expect(apiClient(harness.test.sluice.app).login('root', '123456')).rejects.toThrow();
  });

  it('sends the browser to /login?expired=true after a 401 and forgets the user', async () => {
    const context = await harness.newContext();
    const page = await context.newPage();
    await loginThroughForm(page, 'root', newPassword);
    await page.waitForURL('**/token');
    await context.clearCookies();
    // The token page may still be loading: its own 401 can send the app to the login first, which
    // aborts this navigation (net::ERR_ABORTED). Either way the browser must end at the login.
    await page.goto('/log', { waitUntil: 'commit' }).catch((error: unknown) => {
      if (!String(error).includes('ERR_ABORTED')) throw error;
    });
    await page.waitForURL('**/login?expired=true');
    await page.getByText('Not logged in or login expired, please log in again.').waitFor();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  });

  it('still ends at /login?expired=true when another navigation overtakes the 401 redirect', async () => {
    const context = await harness.newContext();
    const page = await context.newPage();
    // The token list's answer is held, then a 401: the session dies while the token page loads.
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/api/token/?*', async (route) => {
      await held;
      await route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, message: 'not logged in' }),
      });
    });
    await loginThroughForm(page, 'root', newPassword);
    await page.waitForURL('**/token');
    await context.clearCookies();
    const redirecting = page.waitForRequest((request) => request.url().endsWith('/login?expired=true'));
    answer();
    // The 401's navigation is under way: /log, opened now, takes its place. A user forgotten by the
    // first page would send /log's guard to a plain /login.
    await redirecting;
    await page.goto('/log', { waitUntil: 'commit' }).catch((error: unknown) => {
      if (!String(error).includes('ERR_ABORTED')) throw error;
    });
    await page.waitForURL('**/login?expired=true');
    await page.getByTestId('login-expired').waitFor();
    await expect.poll(() => page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  });

  it('shows the not-found screen for an unknown path', async () => {
    const page = await harness.newPage();
    await page.goto('/this/path/does/not/exist');
    await page.getByText('The page does not exist').waitFor();
    await page.getByText('Please check that the address in your browser is correct.').waitFor();
    expect(await page.title()).toBe('Sluice');
  });

  it('puts the navigation in a menu at 390 px, with a register button', async () => {
    const page = await harness.newPage({ viewport: MOBILE });
    await page.goto('/');
    await page.getByTestId('home-default').waitFor();
    expect(await inViewport(page, 'nav')).toBe(false);
    expect(await page.getByTestId('register-button').isVisible()).toBe(true);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(MOBILE.width);

    await page.getByTestId('nav-burger').click();
    await expect.poll(() => inViewport(page, 'nav')).toBe(true);
    await page.getByTestId('nav').getByText('Tokens').click();
    // Tokens needs a login: the guard sends the visitor to /login and the menu closes.
    await page.waitForURL('**/login');
    await expect.poll(() => inViewport(page, 'nav')).toBe(false);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  });

  it('speaks Chinese to a Chinese browser, and remembers a switch to English', async () => {
    const page = await harness.newPage({ locale: 'zh-CN' });
    await page.goto('/login');
    await page.getByText('登录 Sluice').waitFor();
    await page.getByTestId('nav').getByText('令牌').waitFor();
    await page.getByTestId('language-switch').filter({ visible: true }).click();
    await page.getByTestId('language-en').click();
    await page.getByText('Log in to Sluice').waitFor();
    await page.reload();
    await page.getByText('Log in to Sluice').waitFor();
    expect(await page.evaluate(() => localStorage.getItem('language'))).toBe('en');
  });
});
