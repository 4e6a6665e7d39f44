import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { DESKTOP, MOBILE, pageErrors, startHarness, type Harness } from './support/harness.js';

const scheme = (page: Page) => page.locator('html').getAttribute('data-mantine-color-scheme');

/** Issue 21: the light/dark switch, and the browser's own preference before any switch. */
describe('console: light and dark', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it.each([
    ['desktop', DESKTOP],
    ['phone', MOBILE],
  ] as const)(
    'switches on every click without an error, and remembers the choice (%s)',
    async (_, viewport) => {
      const page = await harness.newPage({ viewport });
      const errors = pageErrors(page);
      await page.goto('/login');
      await page.getByTestId('login-submit').waitFor();
      expect(await scheme(page)).toBe('light');
      if (viewport === MOBILE) await page.getByTestId('nav-burger').click();
      const toggle = page.getByTestId('theme-switch').filter({ visible: true });
      for (const expected of ['dark', 'light', 'dark']) {
        await toggle.click();
        await expect.poll(() => scheme(page)).toBe(expected);
      }
      expect(errors).toEqual([]);
      expect(await page.evaluate(() => localStorage.getItem('color_scheme'))).toBe('dark');
      await page.reload();
      await page.getByTestId('login-submit').waitFor();
      expect(await scheme(page)).toBe('dark');
    },
  );

  it("follows the browser's dark preference until switched", async () => {
    const page = await harness.newPage({ colorScheme: 'dark' });
    const errors = pageErrors(page);
    await page.goto('/login');
    await page.getByTestId('login-submit').waitFor();
    expect(await scheme(page)).toBe('dark');
    await page.getByTestId('theme-switch').filter({ visible: true }).click();
    await expect.poll(() => scheme(page)).toBe('light');
    expect(errors).toEqual([]);
  });
});
