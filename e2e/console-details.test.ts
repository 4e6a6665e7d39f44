import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import {
  DESKTOP,
  MOBILE,
  loginThroughForm,
  startHarness,
  toastTexts,
  type Harness,
} from './support/harness.js';
import { createChannel } from './support/seed.js';

const VIEWPORTS = [
  ['desktop', DESKTOP],
  ['phone', MOBILE],
] as const;

/** Two boxes overlap. */
const overlaps = async (first: Locator, second: Locator): Promise<boolean> => {
  const [a, b] = [await first.boundingBox(), await second.boundingBox()];
  if (!a || !b) return false;
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
};

/** Issue 21's smaller console defects, each at 1280 and 390 px. */
describe('console: details of issue 21', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
    // Nothing listens on port 9: the channel's test fails.
    await createChannel(await harness.root(), 'http://127.0.0.1:9');
  });
  afterAll(async () => {
    await harness?.close();
  });

  const rootPage = async (viewport: { width: number; height: number }): Promise<Page> => {
    const page = await harness.newPage({ viewport });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    return page;
  };

  it.each(VIEWPORTS)(
    'shows a channel whose test failed as failed, not untested (%s)',
    async (_, viewport) => {
      const page = await rootPage(viewport);
      await page.goto('/channel');
      const row = page.getByTestId('channel-row').first();
      await row
        .getByTestId('channel-response-time')
        .filter({ hasText: /Untested|Failed/ })
        .waitFor();
      await row.getByTestId('channel-test').click();
      await row.getByTestId('channel-response-time').filter({ hasText: 'Failed' }).waitFor();
      expect(await row.getByTestId('channel-response-time').getAttribute('data-level')).toBe('failed');
    },
  );

  it.each(VIEWPORTS)('refuses more than 100 redemption codes with a message (%s)', async (_, viewport) => {
    const page = await rootPage(viewport);
    await page.goto('/redemption/add');
    await page.locator('input[name="name"]').fill('too-many');
    await page.locator('input[name="count"]').fill('150');
    await page.locator('input[name="name"]').click();
    // Not clamped to 100 on blur: the field keeps what was typed and says why it is refused.
    expect(await page.locator('input[name="count"]').inputValue()).toBe('150');
    await page.getByText('The number of codes must be a whole number from 1 to 100.').first().waitFor();
    await page.getByTestId('redemption-submit').click();
    await page.waitForTimeout(300);
    expect(page.url()).toMatch(/\/redemption\/add$/);
    const listed = await (await harness.root()).get('/api/redemption/search?keyword=too-many');
    expect(listed.body.data).toEqual([]);
  });

  it.each(VIEWPORTS)("separates the thousands of root's quota (%s)", async (_, viewport) => {
    const root = await harness.root();
    const self = await root.get('/api/user/self');
    const { id } = self.body.data as { id: number };
    await harness.test.sluice.database.db
      .updateTable('users')
      .set({ quota: 500_000_000_000_000 })
      .where('id', '=', id)
      .execute();
    const page = await rootPage(viewport);
    await page.goto('/topup');
    await page.getByTestId('topup-quota').filter({ hasText: '$1,000,000,000.00' }).waitFor();
    await page.goto('/user');
    await page
      .locator('[data-testid="user-row"][data-username="root"]')
      .getByText('$1,000,000,000.00')
      .waitFor();
  });

  it.each(VIEWPORTS)('keeps the Redeem button free after failed redemptions (%s)', async (_, viewport) => {
    const page = await rootPage(viewport);
    await page.goto('/topup');
    const redeem = page.getByTestId('topup-redeem');
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await page.locator('input[name="redemption_code"]').fill(`not-a-code-${attempt}`);
      await redeem.click({ trial: false });
      await page
        .getByTestId('topup-result')
        .filter({ hasText: /invalid/i })
        .waitFor();
    }
    for (const toast of await page.locator('.mantine-Notification-root').all())
      expect(await overlaps(toast, redeem)).toBe(false);
    // Clickable: nothing lies on top of its centre.
    await redeem.click({ trial: true, timeout: 1_000 });
  });

  it.each(VIEWPORTS)('speaks Chinese for channel types and server messages (%s)', async (_, viewport) => {
    const root = await harness.root();
    const created = await root.post('/api/channel/', {
      name: 'qwen',
      type: CHANNEL_TYPE.ali,
      key: 'sk-qwen',
      models: 'qwen-turbo',
      group: 'default',
    });
    expect(created.body.success, created.text).toBe(true);
    const page = await harness.newPage({ viewport, locale: 'zh-CN' });
    await loginThroughForm(page, 'root', 'not-the-password');
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('用户名或密码错误'));
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/channel');
    await page
      .getByTestId('channel-row')
      .filter({ hasText: 'qwen' })
      .getByText('阿里通义千问')
      .first()
      .waitFor();
    await page.goto('/channel/add');
    await page.getByTestId('channel-type').click();
    await page.getByRole('option', { name: '百度文心千帆' }).waitFor();
  });
});
