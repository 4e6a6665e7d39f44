import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { DESKTOP, MOBILE, loginThroughForm, startHarness, type Harness } from './support/harness.js';
import { createChannel, createRedemptionCodes } from './support/seed.js';

/** A list screen, the test id of its rows and the actions every row must show. */
const SCREENS = [
  {
    path: '/token',
    card: 'token-page',
    row: 'token-row',
    actions: ['token-copy', 'token-copy-menu', 'token-toggle', 'token-edit', 'token-delete'],
  },
  {
    path: '/channel',
    card: 'channel-page',
    row: 'channel-row',
    actions: ['channel-test', 'channel-toggle', 'channel-edit', 'channel-delete'],
  },
  {
    path: '/user',
    card: 'user-page',
    row: 'user-row',
    actions: ['user-promote', 'user-demote', 'user-toggle', 'user-edit', 'user-delete'],
  },
  {
    path: '/redemption',
    card: 'redemption-page',
    row: 'redemption-row',
    actions: ['redemption-copy', 'redemption-toggle', 'redemption-edit', 'redemption-delete'],
  },
] as const;

/** Left and right edge of a locator's box. */
const edges = async (locator: Locator) => {
  const box = await locator.boundingBox();
  if (!box) throw new Error('not rendered');
  return { left: box.x, right: box.x + box.width };
};

/** Every element of `locator` lies inside `container` horizontally (not cut off, not scrolled away). */
const expectInside = async (locator: Locator, container: Locator, what: string) => {
  const outer = await edges(container);
  const all = await locator.all();
  expect(all.length, what).toBeGreaterThan(0);
  for (const element of all) {
    await element.waitFor({ state: 'visible' });
    const inner = await edges(element);
    expect(inner.left, what).toBeGreaterThanOrEqual(outer.left - 0.5);
    expect(inner.right, what).toBeLessThanOrEqual(outer.right + 0.5);
  }
};

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** Issue 21: every list fits at 1280 px, and shows each row's actions on a phone. */
describe('console: lists at 1280 and 390 px', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
    const root = await harness.root();
    const token = await root.post('/api/token/', {
      name: 'a-long-token-name',
      remain_quota: 500000,
      expired_time: -1,
    });
    expect(token.body.success, token.text).toBe(true);
    await createChannel(root, 'http://127.0.0.1:9', 'gpt-4o-mini,gpt-4o,claude-3-5-sonnet-20241022');
    // The widest cells: a long type label, three groups, an automatically disabled status.
    const wide = await root.post('/api/channel/', {
      name: 'knowledge-base-cn',
      type: CHANNEL_TYPE.aiProxyLibrary,
      key: 'sk-upstream-wide',
      base_url: 'http://127.0.0.1:9',
      models: 'gpt-4o-mini',
      group: 'default,vip,svip',
    });
    expect(wide.body.success, wide.text).toBe(true);
    await harness.test.sluice.database.db
      .updateTable('channels')
      .set({ status: CHANNEL_STATUS.autoDisabled })
      .where('name', '=', 'knowledge-base-cn')
      .execute();
    const user = await root.post('/api/user/', { username: 'listed-user', password: 'listed-pass' });
    expect(user.body.success, user.text).toBe(true);
    const [code] = await createRedemptionCodes(root, 'long-redemption-one', 100000, 2);
    const redeemed = await root.post('/api/user/topup', { key: code });
    expect(redeemed.body.success, redeemed.text).toBe(true);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const rootPage = async (viewport: { width: number; height: number }, locale?: string) => {
    const page = await harness.newPage({ viewport, ...(locale ? { locale } : {}) });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    return page;
  };

  it.each(SCREENS.flatMap((screen) => ['en-US', 'zh-CN'].map((locale) => ({ ...screen, locale }))))(
    '$path ($locale): the rows and their actions fit the card at 1280 px',
    async (screen) => {
      const page = await rootPage(DESKTOP, screen.locale);
      await page.goto(screen.path);
      const card = page.getByTestId(screen.card);
      await page.getByTestId(screen.row).last().waitFor();
      const rows = page.getByTestId(screen.row);
      for (const action of screen.actions) await expectInside(rows.getByTestId(action), card, action);
      await expectInside(rows, card, screen.row);
      expect(await pageWidth(page)).toBeLessThanOrEqual(DESKTOP.width);
    },
  );

  it.each(SCREENS)('$path: every row shows its actions on screen at 390 px', async (screen) => {
    const page = await rootPage(MOBILE);
    await page.goto(screen.path);
    const card = page.getByTestId(screen.card);
    await page.getByTestId(screen.row).last().waitFor();
    const rows = page.getByTestId(screen.row);
    for (const action of screen.actions) await expectInside(rows.getByTestId(action), card, action);
    expect(await pageWidth(page)).toBeLessThanOrEqual(MOBILE.width);
  });

  it('the log table shows its Detail column at 1280 px', async () => {
    const page = await rootPage(DESKTOP);
    await page.goto('/log');
    const card = page.getByTestId('log-page');
    await page.getByTestId('log-row').first().waitFor();
    await expectInside(page.getByRole('columnheader', { name: 'Detail' }), card, 'Detail');
    await expectInside(page.getByTestId('log-row').first().locator('td').last(), card, 'detail cell');
  });
});
