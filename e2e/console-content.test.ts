import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOBILE, pageErrors, startHarness, type Harness } from './support/harness.js';
import { setOption } from './support/seed.js';

/** Issue 21: the admin's texts render their inline HTML, sanitised (no script of theirs runs). */
describe('console: admin texts', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
    const root = await harness.root();
    await setOption(
      root,
      'Notice',
      '**Maintenance** on <b>Sunday</b>, <span style="color: red" data-testid="notice-span">02:00</span><br>' +
        '<img src="/logo.png" onerror="window.pwned = 1"> <a href="javascript:window.pwned = 2">x</a>',
    );
    await setOption(
      root,
      'HomePageContent',
      '# Welcome\n\nPrices <i>halved</i> today. <script>window.pwned = 3</script>\n\n' +
        '<form data-testid="fake-login"><input name="password"></form>',
    );
    await setOption(root, 'Footer', '<p data-testid="footer-p" onmouseover="window.pwned = 4">© Gateway</p>');
  });
  afterAll(async () => {
    await harness?.close();
  });

  it.each([
    ['desktop', undefined],
    ['phone', MOBILE],
  ] as const)(
    'shows the notice, home page and footer as HTML without running them (%s)',
    async (_, viewport) => {
      const page = await harness.newPage(viewport ? { viewport } : {});
      const errors = pageErrors(page);
      await page.goto('/');
      const notice = page.locator('.mantine-Notification-root');
      await notice.locator('b', { hasText: 'Sunday' }).waitFor();
      await notice.locator('strong', { hasText: 'Maintenance' }).waitFor();
      expect(await notice.innerText()).not.toContain('<b>');
      expect(await page.getByTestId('notice-span').getAttribute('style')).toBe('color: red');
      expect(await notice.locator('img').getAttribute('onerror')).toBeNull();
      expect(await notice.locator('a').getAttribute('href')).toBeNull();

      const home = page.getByTestId('content-html');
      await home.locator('h1', { hasText: 'Welcome' }).waitFor();
      await home.locator('i', { hasText: 'halved' }).waitFor();
      expect(await home.innerText()).not.toContain('<i>');
      expect(await home.locator('script').count()).toBe(0);
      expect(await page.getByTestId('fake-login').count()).toBe(0);
      expect(await page.locator('input[name="password"]').count()).toBe(0);

      await page.getByTestId('footer-p').waitFor();
      expect(await page.getByTestId('footer-p').getAttribute('onmouseover')).toBeNull();
      await page.getByTestId('footer-p').hover();
      expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
      expect(errors).toEqual([]);
    },
  );
});
