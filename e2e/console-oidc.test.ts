import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PASSWORD, signInNewUser } from '../server/src/test-support/log-fixtures.js';
import {
  startOidcProviderDouble,
  type OidcProviderDouble,
} from '../server/src/test-support/oidc-provider-double.js';
import { MOBILE, loginThroughForm, startHarness, toastTexts, type Harness } from './support/harness.js';
import { setOption } from './support/seed.js';

/** OpenID Connect in Chromium: the login screen's button, the provider's pages, back signed in; binding and unbinding. */
describe('console: OpenID Connect sign-in', () => {
  let harness: Harness;
  let provider: OidcProviderDouble;
  beforeAll(async () => {
    harness = await startHarness();
    provider = await startOidcProviderDouble([`${harness.url}/oauth/oidc`]);
    provider.people.set('sub-erin', {
      email: 'erin@corp.example',
      preferred_username: 'erin',
      name: 'Erin',
      groups: ['ml-team'],
    });
    provider.people.set('sub-frank', { email: 'frank@corp.example', preferred_username: 'frank' });
    const root = await harness.root();
    for (const [key, value] of Object.entries({
      ServerAddress: harness.url,
      OidcWellKnown: provider.issuer,
      OidcClientId: provider.clientId,
      OidcClientSecret: provider.clientSecret,
      OidcEnabled: 'true',
      OidcGroupClaim: 'groups',
      OidcGroupMapping: '{"ml-team": "vip"}',
    }))
      await setOption(root, key, value);
  });
  afterAll(async () => {
    await harness?.close();
    await provider?.close();
  });

  /** The provider's own pages: sign in as `subject` (any password), then consent. */
  const atProvider = async (page: Page, subject: string) => {
    await page.waitForURL(`${provider.issuer}/**`);
    await page.locator('input[name="login"]').fill(subject);
    await page.locator('input[name="password"]').fill('any-password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
  };

  it('signs a new user in from the login screen, in the mapped group', async () => {
    const page = await harness.newPage();
    await page.goto('/login');
    await page.getByTestId('oauth-oidc').click();
    await atProvider(page, 'sub-erin');
    await page.waitForURL(`${harness.url}/`);
    await expect.poll(() => page.evaluate(() => localStorage.getItem('user'))).toContain('"username":"erin"');
    const user = await harness.test.sluice.database.db
      .selectFrom('users')
      .selectAll()
      .where('oidc_id', '=', 'sub-erin')
      .executeTakeFirstOrThrow();
    expect(user).toMatchObject({ username: 'erin', group: 'vip' });
  });

  it('binds the account from the personal settings at 390 px in Chinese, and unbinds it', async () => {
    await signInNewUser(harness.test, 'frankpw');
    const page = await harness.newPage({ viewport: MOBILE, locale: 'zh-CN' });
    await loginThroughForm(page, 'frankpw', FIXTURE_PASSWORD);
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.goto('/setting');
    await page.getByText('单点登录（OpenID Connect）').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await page.getByTestId('bind-oidc').click();
    await atProvider(page, 'sub-frank');
    await page.waitForURL('**/setting');
    await page.getByTestId('unbind-oidc').waitFor();
    await page.getByText('sub-frank').waitFor();
    await page.getByTestId('unbind-oidc').click();
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('单点登录账户已解绑'));
    await page.getByTestId('bind-oidc').waitFor();
  });
});
