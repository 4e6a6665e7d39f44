import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInNewUser } from '../server/src/test-support/log-fixtures.js';
import { DESKTOP, MOBILE, loginThroughForm, startHarness, type Harness } from './support/harness.js';
import { createChannel } from './support/seed.js';

/** The audit log in Chromium: an administrator's change with its secret masked, filters, CSV, 390 px, zh. */
describe('console: audit log', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
    const root = await harness.root();
    await createChannel(root, 'http://127.0.0.1:9');
    await root.put('/api/option/', { key: 'SMTPToken', value: 'smtp-secret-e2e' });
  });
  afterAll(async () => {
    await harness?.close();
  });

  const openAudit = async (viewport: { width: number; height: number } = DESKTOP, locale = 'en-US') => {
    const page = await harness.newPage({ viewport, locale });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/audit');
    await page.getByTestId('audit-row').first().waitFor();
    return page;
  };

  it('shows who changed what, masked, filters it and exports the filtered rows', async () => {
    const page = await openAudit();
    await page.getByTestId('audit-object').click();
    await page.getByRole('option', { name: 'Channel' }).click();
    await page.getByTestId('audit-search').click();
    await expect.poll(() => page.getByTestId('audit-row').count()).toBe(1);
    const row = page.getByTestId('audit-row').first();
    await row.getByText('Created').waitFor();
    await row.getByTestId('audit-show').click();
    const after = await page.getByTestId('audit-after').innerText();
    expect(after).toContain('e2e-upstream');
    expect(after).toContain('[masked]');
    expect(after).not.toContain('sk-upstream-e2e');
    await page.keyboard.press('Escape');

    const download = page.waitForEvent('download');
    await page.getByTestId('audit-export').click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^audit-\d+\.csv$/);
    const text = await readFile((await file.path()) ?? '', 'utf8');
    const lines = text.trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(',channel,');
    expect(text).not.toContain('sk-upstream-e2e');
  });

  it('fits 390 px and speaks Chinese', async () => {
    const page = await openAudit(MOBILE, 'zh-CN');
    await page.getByText('审计日志').first().waitFor();
    await page.getByText('登录成功').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await page.getByTestId('audit-show').first().click();
    await page.getByTestId('audit-before').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  });

  it('is not for a common user', async () => {
    await signInNewUser(harness.test, 'plain-e2e');
    const page = await harness.newPage();
    await loginThroughForm(page, 'plain-e2e', 'user-password-1');
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.goto('/audit');
    await page.getByText('No permission').waitFor();
    expect(await page.getByTestId('audit-row').count()).toBe(0);
  });
});
