import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, toastTexts, type Harness } from './support/harness.js';
import { createRedemptionCodes } from './support/seed.js';

/** A new user: register, log in back to the page they wanted, redeem a code, read the logs, leave. */
describe('console: a new account', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('registers, redeems a code, sees the top-up log and the statistic, then deletes the account', async () => {
    const page = await harness.newPage({ clipboard: true });
    await page.goto('/register?aff=ABCD');
    await page.locator('input[name="username"]').fill('alice');
    await page.locator('input[name="password"]').fill('short');
    await page.locator('input[name="password2"]').fill('short');
    await page.getByTestId('register-submit').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Password length must not be less than 8!'));
    expect(await page.evaluate(() => localStorage.getItem('aff'))).toBe('ABCD');

    await page.locator('input[name="password"]').fill('alice-password');
    await page.locator('input[name="password2"]').fill('alice-password');
    await page.getByTestId('register-submit').click();
    await page.waitForURL('**/login');
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Registration successful!'));

    // A guarded page remembers where the visitor wanted to go.
    await page.goto('/topup');
    await page.waitForURL('**/login');
    await page.locator('input[name="username"]').fill('alice');
    await page.locator('input[name="password"]').fill('alice-password');
    await page.getByTestId('login-submit').click();
    await page.waitForURL('**/topup');
    await page.getByTestId('topup-quota').filter({ hasText: '$0.00' }).waitFor();

    const [code = ''] = await createRedemptionCodes(await harness.root(), 'welcome', 1_000_000);
    // The outcome shows under the Redeem button (issue 21: toasts covered it).
    const result = page.getByTestId('topup-result');
    await page.getByTestId('topup-redeem').click();
    await result.filter({ hasText: 'Please enter the redemption code!' }).waitFor();
    await page.locator('input[name="redemption_code"]').fill(code);
    await page.getByTestId('topup-redeem').click();
    await page.getByTestId('topup-quota').filter({ hasText: '$2.00' }).waitFor();
    await result.filter({ hasText: 'Top-up successful' }).waitFor();
    for (let attempt = 0; attempt < 6; attempt += 1) {
      await page.locator('input[name="redemption_code"]').fill(code);
      await page.getByTestId('topup-redeem').click();
      await result.filter({ hasText: /used|invalid/i }).waitFor();
    }
    // The redemptions raised no toast (the login's own may still be fading on a loaded machine).
    expect((await toastTexts(page)).filter((text) => text !== 'Login successful!')).toEqual([]);

    await page.goto('/log');
    const row = page.getByTestId('log-row').filter({ hasText: 'Top-up' });
    await row.waitFor();
    expect(await page.getByTestId('log-username').count()).toBe(0);
    await page.getByTestId('log-stat-quota').filter({ hasText: '$0.00' }).waitFor();
    await page.getByTestId('log-stat-tokens').filter({ hasText: '0' }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByTestId('log-export').click();
    expect((await download).suggestedFilename()).toMatch(/\.csv$/);

    await page.goto('/setting');
    await page.getByTestId('invite-link').click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toMatch(new RegExp(`^${harness.url}/register\\?aff=\\w+$`));

    await page.getByTestId('delete-account').click();
    await page.getByTestId('delete-confirm-input').fill('bob');
    await page.getByTestId('delete-confirm').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Please enter your account name to confirm deletion!'));
    await page.getByTestId('delete-confirm-input').fill('alice');
    await page.getByTestId('delete-confirm').click();
    await page.waitForURL('**/login');
    await expect.poll(() => page.evaluate(() => localStorage.getItem('user'))).toBeNull();
  });
});
