import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOBILE, loginThroughForm, startHarness, toastTexts, type Harness } from './support/harness.js';

/** User management as root: create, disable and enable, promote, root row locked, delete. */
describe('console: users', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  const serverUser = async (username: string) => {
    const answer = await (await harness.root()).get(`/api/user/search?keyword=${username}`);
    return (answer.body.data as { username: string; role: number; status: number }[]).find(
      (user) => user.username === username,
    );
  };

  it('creates a user, disables and enables it, promotes it, and deletes it', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/user');
    await page.getByText('Manage users').waitFor();
    await page.getByTestId('user-add').click();
    await page.waitForURL('**/user/add');
    await page.locator('input[name="username"]').fill('bob');
    await page.getByTestId('user-create').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Please enter a username and a password.'));
    await page.locator('input[name="display_name"]').fill('Bob');
    await page.locator('input[name="password"]').fill('bob-password');
    await page.getByTestId('user-create').click();
    await page.waitForURL('**/user');
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('User created!'));

    const root = page.locator('[data-testid="user-row"][data-username="root"]');
    for (const action of ['user-promote', 'user-demote', 'user-toggle', 'user-delete'])
      expect(await root.getByTestId(action).isDisabled()).toBe(true);

    const bob = page.locator('[data-testid="user-row"][data-username="bob"]');
    await bob.getByText('Activated').waitFor();
    await bob.getByTestId('user-toggle').click();
    await bob.getByTestId('user-status').filter({ hasText: 'Banned' }).waitFor();
    expect((await serverUser('bob'))?.status).toBe(2);
    await bob.getByTestId('user-toggle').click();
    await bob.getByTestId('user-status').filter({ hasText: 'Activated' }).waitFor();

    await bob.getByTestId('user-promote').click();
    await bob.getByText('Admin', { exact: true }).waitFor();
    expect((await serverUser('bob'))?.role).toBe(10);
    expect(await bob.getByTestId('user-promote').isDisabled()).toBe(true);

    await bob.getByTestId('user-delete').click();
    await page.getByTestId('confirm').click();
    await expect.poll(() => bob.count()).toBe(0);
    expect(await serverUser('bob')).toBeUndefined();
  });

  it('fits the list into 390 px and sorts by request count', async () => {
    const page = await harness.newPage({ viewport: MOBILE });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/user');
    await page.locator('[data-testid="user-row"][data-username="root"]').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    const sorted = page.waitForRequest((request) => request.url().includes('order=request_count'));
    await page.getByTestId('user-order').click();
    await page.getByRole('option', { name: 'Requests' }).click();
    await sorted;
  });
});
