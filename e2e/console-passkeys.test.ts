import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PASSWORD, signInNewUser } from '../server/src/test-support/log-fixtures.js';
import { MOBILE, startHarness, toastTexts, type ContextOptions, type Harness } from './support/harness.js';
import { setOption } from './support/seed.js';

/**
 * Passkeys in Chromium with the DevTools virtual authenticator (WebAuthn.addVirtualAuthenticator
 * through playwright-core's CDP session): registered from the personal settings, a sign-in with the
 * passkey alone and as the second factor, deleted. WebAuthn needs a domain, so the console is
 * opened at localhost (the relying party of the ServerAddress option).
 */
describe('console: passkeys', () => {
  let harness: Harness;
  let origin = '';
  beforeAll(async () => {
    harness = await startHarness();
    origin = harness.url.replace('127.0.0.1', 'localhost');
    await setOption(await harness.root(), 'ServerAddress', origin);
    await signInNewUser(harness.test, 'passkeyuser');
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** A page whose browser has a platform authenticator that verifies its user. */
  const withAuthenticator = async (options: ContextOptions = {}) => {
    const context: BrowserContext = await harness.newContext(options);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const credentials = async () =>
      (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
    return { page, credentials };
  };
  const passwordStep = async (page: Page) => {
    await page.goto(`${origin}/login`);
    await page.locator('input[name="username"]').fill('passkeyuser');
    await page.locator('input[name="password"]').fill(FIXTURE_PASSWORD);
    await page.getByTestId('login-submit').click();
  };
  const signOut = async (page: Page) => {
    await page.getByTestId('user-menu').click();
    await page.getByTestId('logout').click();
    await page.waitForURL('**/login');
  };

  it('registers a passkey, signs in with it alone and as the second factor, and deletes it', async () => {
    const { page, credentials } = await withAuthenticator();
    await passwordStep(page);
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.goto(`${origin}/setting`);
    await page.getByTestId('passkey-add').click();
    await page.getByTestId('passkey-name-input').fill('Chromium');
    await page.getByTestId('passkey-name-submit').click();
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('Passkey added!'));
    await page.locator('[data-testid="passkey-row"][data-name="Chromium"]').waitFor();
    const [credential] = await credentials();
    expect(credential?.isResidentCredential).toBe(true);
    await signOut(page);

    await page.getByTestId('login-passkey').click();
    await page.waitForURL('**/token');
    await expect.poll(() => page.evaluate(() => localStorage.getItem('user'))).toContain('passkeyuser');
    await signOut(page);

    await passwordStep(page);
    await page.getByTestId('second-factor-passkey').click();
    await page.waitForURL('**/token');

    await page.goto(`${origin}/setting`);
    const row = page.locator('[data-testid="passkey-row"][data-name="Chromium"]');
    await row.getByTestId('passkey-delete').click();
    await page.getByTestId('confirm').click();
    await expect.poll(() => row.count()).toBe(0);
    await signOut(page);
    // The authenticator still holds the credential; the server no longer knows it.
    expect(await credentials()).toHaveLength(1);
    await page.getByTestId('login-passkey').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('this passkey is not registered here'));
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('shows the passkeys at 390 px in Chinese', async () => {
    const { page } = await withAuthenticator({ viewport: MOBILE, locale: 'zh-CN' });
    await passwordStep(page);
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.goto(`${origin}/setting`);
    await page.getByText('通行密钥', { exact: true }).waitFor();
    await page.getByTestId('passkey-add').click();
    await page.getByTestId('passkey-name-input').fill('手机');
    await page.getByTestId('passkey-name-submit').click();
    await page.locator('[data-testid="passkey-row"][data-name="手机"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  });
});
