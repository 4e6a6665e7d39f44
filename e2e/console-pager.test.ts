import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DESKTOP, MOBILE, loginThroughForm, startHarness, type Harness } from './support/harness.js';
import { createRedemptionCodes } from './support/seed.js';

/** Issue 21: the lists page with the spec's pager (a total, pages, a page size), not "load more". */
describe('console: the pager of the lists', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
    const root = await harness.root();
    for (let index = 1; index <= 23; index += 1) {
      const token = await root.post('/api/token/', {
        name: `key-${index}`,
        remain_quota: 1,
        expired_time: -1,
      });
      expect(token.body.success, token.text).toBe(true);
    }
    for (let index = 1; index <= 11; index += 1) {
      const user = await root.post('/api/user/', { username: `member${index}`, password: 'member-pass' });
      expect(user.body.success, user.text).toBe(true);
    }
    await createRedemptionCodes(root, 'batch', 1000, 12);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const rootPage = async (viewport: { width: number; height: number } = DESKTOP): Promise<Page> => {
    const page = await harness.newPage({ viewport });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    return page;
  };
  const rows = (page: Page, testId: string) => page.getByTestId(testId).count();

  it.each([
    ['desktop', DESKTOP],
    ['phone', MOBILE],
  ] as const)('pages the tokens by 10, 20 or more, with the total (%s)', async (_, viewport) => {
    const page = await rootPage(viewport);
    await page.goto('/token');
    await page.getByTestId('pager-total').filter({ hasText: '23 in all' }).waitFor();
    expect(await rows(page, 'token-row')).toBe(10);
    expect(await page.getByTestId('token-row').first().innerText()).toContain('key-23');

    await page.getByTestId('pager-page-3').click();
    await expect.poll(() => rows(page, 'token-row')).toBe(3);
    expect(await page.getByTestId('token-row').last().innerText()).toContain('key-1');
    await page.getByTestId('pager-previous').click();
    await expect.poll(() => page.getByTestId('token-row').first().innerText()).toContain('key-13');

    await page.getByTestId('page-size').click();
    await page.getByRole('option', { name: '20 / page' }).click();
    await expect.poll(() => rows(page, 'token-row')).toBe(20);
    expect(await page.getByTestId('token-row').first().innerText()).toContain('key-23');
    await page.getByTestId('pager-next').click();
    await expect.poll(() => rows(page, 'token-row')).toBe(3);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      viewport.width,
    );
  });

  it('gives users and redemption codes the same pager', async () => {
    const page = await rootPage();
    await page.goto('/user');
    await page.getByTestId('pager-total').filter({ hasText: '12 in all' }).waitFor();
    expect(await rows(page, 'user-row')).toBe(10);
    await page.getByTestId('pager-page-2').click();
    await expect.poll(() => rows(page, 'user-row')).toBe(2);

    await page.goto('/redemption');
    await page.getByTestId('pager-total').filter({ hasText: '12 in all' }).waitFor();
    await page.getByTestId('pager-next').click();
    await expect.poll(() => rows(page, 'redemption-row')).toBe(2);
  });
});
