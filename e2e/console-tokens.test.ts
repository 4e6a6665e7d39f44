import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOBILE, loginThroughForm, startHarness, toastTexts, type Harness } from './support/harness.js';
import { tokenKey } from './support/seed.js';

/** Tokens: create with an expiry preset, copy the key and a chat-client link, toggle, search. */
describe('console: tokens', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('creates a token and copies its key', async () => {
    const page = await harness.newPage({ clipboard: true });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/token');
    await page.getByTestId('list-empty').waitFor();
    await page.getByTestId('token-add').click();
    await page.waitForURL('**/token/add');
    await page.locator('input[name="name"]').fill('laptop');
    await page.getByTestId('expiry-day').click();
    expect(await page.locator('input[name="expiry"]').inputValue()).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/,
    );
    await page.getByTestId('token-submit').click();
    await page.waitForURL('**/token');
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('Token created'));

    const row = page.getByTestId('token-row').filter({ hasText: 'laptop' });
    await row.waitFor();
    const key = await tokenKey(await harness.root(), 'laptop');
    await row.getByTestId('token-copy').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(`sk-${key}`);

    await row.getByTestId('token-copy-menu').click();
    await page.getByTestId('token-copy-next').click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toBe(`https://app.nextchat.dev/#/?settings={"key":"sk-${key}","url":"${harness.url}"}`);
  });

  it('sets a budget on a token, refuses a fractional one, and shows its window usage as a bar', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/token/add');
    await page.locator('input[name="name"]').fill('budgeted');
    await page.locator('input[name="budget_daily"]').fill('2.5');
    await page.getByTestId('token-submit').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Budgets must be whole numbers'));
    await page.locator('input[name="budget_daily"]').fill('1000000');
    await page.getByTestId('token-submit').click();
    await page.waitForURL('**/token');
    const row = page.getByTestId('token-row').filter({ hasText: 'budgeted' });
    const bar = row.getByTestId('budget-window-daily');
    await bar.waitFor();
    expect(await bar.getAttribute('data-percent')).toBe('0');
    expect(await bar.textContent()).toContain('of $2.00');
  });

  it('disables a token, finds it by name, and shows the list without overflow at 390 px', async () => {
    const page = await harness.newPage({ viewport: MOBILE });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/token');
    const row = page.getByTestId('token-row').filter({ hasText: 'laptop' });
    await row.getByTestId('token-toggle').click();
    await row.getByText('Disabled').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);

    await page.getByTestId('search').fill('  lap ');
    await page.getByTestId('search').press('Enter');
    await expect.poll(() => page.getByTestId('token-row').count()).toBe(1);
    await page.getByTestId('search').fill('nothing-like-it');
    await page.getByTestId('search').press('Enter');
    await page.getByTestId('list-empty').waitFor();
  });

  it('gives admins the username and channel filters and the cleanup of old logs', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/log');
    await page.getByTestId('log-username').waitFor();
    await page.getByTestId('log-channel').waitFor();
    await page.getByTestId('log-cleanup').click();
    await page.getByTestId('log-cleanup-confirm').click();
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringMatching(/^\d+ logs cleared!$/));
  });
});
