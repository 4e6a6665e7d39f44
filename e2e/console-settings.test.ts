import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loginThroughForm, startHarness, toastTexts, type Harness } from './support/harness.js';

/** The settings tabs of root and of an administrator: saved values show in GET /api/status and in the header at once. */
describe('console: settings', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  const status = async (): Promise<Record<string, unknown>> => {
    const response = await fetch(`${harness.url}/api/status`);
    return ((await response.json()) as { data: Record<string, unknown> }).data;
  };
  const option = async (key: string): Promise<string | undefined> => {
    const answer = await (await harness.root()).get('/api/option/');
    return (answer.body.data as { key: string; value: string }[]).find((entry) => entry.key === key)?.value;
  };
  /** Mantine's switch input is visually hidden: click it through the DOM, as the label would. */
  const toggle = (page: Page, testId: string) => page.getByTestId(testId).dispatchEvent('click');
  const rootPage = async (): Promise<Page> => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    return page;
  };

  it('renames the system and the header follows; the update check answers offline and online', async () => {
    const page = await rootPage();
    await page.goto('/setting?tab=other');
    await page.getByTestId('other-settings').waitFor();
    await page.getByTestId('option-SystemName').fill('Gateway X');
    await page.getByTestId('save-personalisation').click();
    await expect.poll(async () => (await status())['system_name']).toBe('Gateway X');
    await expect.poll(() => page.title()).toBe('Gateway X');

    await page.route('https://api.github.com/**', (route) => route.abort('internetdisconnected'));
    await page.getByTestId('check-update').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Cannot check for updates'));
    await page.unroute('https://api.github.com/**');
    await page.route('https://api.github.com/**', (route) =>
      route.fulfill({ json: { tag_name: 'v9.9.9', body: 'Faster relay.', html_url: 'https://example.com' } }),
    );
    await page.getByTestId('check-update').click();
    await page.getByText('New version: v9.9.9').waitFor();
    await page.getByText('Faster relay.').waitFor();
  });

  it('switches save at once; password login asks before turning off', async () => {
    const page = await rootPage();
    await page.goto('/setting?tab=system');
    await page.getByTestId('system-settings').waitFor();
    expect((await status())['email_verification']).toBe(false);
    await toggle(page, 'option-EmailVerificationEnabled');
    await expect.poll(async () => (await status())['email_verification']).toBe(true);

    await toggle(page, 'option-PasswordLoginEnabled');
    await page.getByTestId('password-login-cancel').click();
    expect(await option('PasswordLoginEnabled')).toBe('true');
    expect(await page.getByTestId('option-PasswordLoginEnabled').isChecked()).toBe(true);

    await page.getByTestId('option-ServerAddress').fill('https://gateway.example.com/');
    await page.getByTestId('save-server').click();
    await expect.poll(async () => (await status())['server_address']).toBe('https://gateway.example.com');

    await page.goto('/setting?tab=operation');
    await page.getByTestId('operation-settings').waitFor();
    await toggle(page, 'option-DisplayInCurrencyEnabled');
    await expect.poll(async () => (await status())['display_in_currency']).toBe(false);
    await page.getByTestId('ratio-view-json').click();
    await page.getByTestId('option-ModelRatio').fill('{"gpt-4o-mini": ');
    await page.getByTestId('save-ratio').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('The model ratio is not a valid JSON string'));
  });

  it('gives an administrator the operation, system and other tabs with their options only', async () => {
    const root = await harness.root();
    const created = await root.post('/api/user/', { username: 'moderator', password: 'moderator-pass' });
    expect(created.body.success, created.text).toBe(true);
    const promoted = await root.post('/api/user/manage', { username: 'moderator', action: 'promote' });
    expect(promoted.body.success, promoted.text).toBe(true);

    const page = await harness.newPage();
    await loginThroughForm(page, 'moderator', 'moderator-pass');
    await page.waitForURL('**/token');
    await page.goto('/setting');
    for (const tab of ['personal', 'operation', 'system', 'other'])
      await page.getByTestId(`setting-tab-${tab}`).waitFor();

    await page.getByTestId('setting-tab-other').click();
    await page.getByTestId('other-settings').waitFor();
    await page.getByTestId('option-SystemName').fill('Moderated');
    await page.getByTestId('save-personalisation').click();
    await expect.poll(async () => (await status())['system_name']).toBe('Moderated');

    await page.getByTestId('setting-tab-system').click();
    await page.getByTestId('system-settings').waitFor();
    await page.getByTestId('setting-root-only').waitFor();
    await toggle(page, 'option-RegisterEnabled');
    await expect.poll(() => option('RegisterEnabled')).toBe('false');
    for (const hidden of ['section-server', 'section-smtp', 'section-github', 'option-PasswordLoginEnabled'])
      expect(await page.getByTestId(hidden).count(), hidden).toBe(0);

    await page.getByTestId('setting-tab-operation').click();
    await page.getByTestId('operation-settings').waitFor();
    expect(await page.getByTestId('option-ChatLink').count()).toBe(0);
    await page.getByTestId('option-QuotaPerUnit').waitFor();
  });
});
