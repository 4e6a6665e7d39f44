import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../server/src/test-support/webhook-receiver.js';
import { DESKTOP, MOBILE, loginThroughForm, startHarness, type Harness } from './support/harness.js';

const SECRET = 'e2e-alert-secret-0123456789';

/** The alerts page in Chromium: a test sent to a real receiver that checks the signature, 390 px, zh. */
describe('console: alerts', () => {
  let harness: Harness;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    [harness, receiver] = await Promise.all([startHarness(), startWebhookReceiver(SECRET)]);
    const root = await harness.root();
    const saved = await root.put('/api/option/', {
      key: 'AlertWebhooks',
      value: JSON.stringify([{ name: 'ops', url: `${receiver.url}/hooks/ops`, secret: SECRET }]),
    });
    expect(saved.body.success).toBe(true);
  });
  afterAll(async () => {
    await harness?.close();
    await receiver?.close();
  });

  const openAlerts = async (viewport: { width: number; height: number } = DESKTOP, locale = 'en-US') => {
    const page = await harness.newPage({ viewport, locale });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/alerts');
    await page.getByTestId('alert-webhook').first().waitFor();
    return page;
  };

  it('sends a test to a webhook, which verifies it, and logs the delivery', async () => {
    const page = await openAlerts();
    expect(await page.getByTestId('alert-webhook').innerText()).toContain(`${receiver.url}/…`);
    await page.getByTestId('alert-send-test').click();
    await page.getByText('The test reached ops.').waitFor();
    expect(receiver.received.at(-1)).toMatchObject({ verified: true, body: { event: 'test' } });
    const row = page.getByTestId('alert-delivery').first();
    await row.getByText('Delivered').waitFor();
    expect(await page.content()).not.toContain(SECRET);
  });

  it('lets a user choose their own quota alerts, saved to their account, at 390 px too', async () => {
    const root = await harness.root();
    const created = await root.post('/api/user/', {
      username: 'alerted',
      password: 'alerted-pass',
      display_name: 'Alerted',
    });
    expect(created.body.success).toBe(true);
    const thresholds = async () =>
      harness.test.sluice.database.db
        .selectFrom('users')
        .select(['quota_alert_threshold', 'token_alert_threshold'])
        .where('username', '=', 'alerted')
        .executeTakeFirstOrThrow();

    const page = await harness.newPage({ viewport: MOBILE });
    await loginThroughForm(page, 'alerted', 'alerted-pass');
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.goto('/setting');
    const section = page.getByTestId('quota-alerts');
    await section.getByTestId('alert-no-email').waitFor();
    // Balance: my own threshold; keys: off.
    await section.getByTestId('alert-quota_alert_threshold-mode').getByText('My own').click();
    const amount = section.locator('input[name="quota_alert_threshold"]');
    await amount.fill('2500000');
    await section.getByText('Alert below $5.00').waitFor();
    await section.getByTestId('alert-token_alert_threshold-mode').getByText('Off').click();
    await section.getByTestId('alert-save').click();
    await page.getByText('Quota alerts saved.').waitFor();
    await expect.poll(async () => Object.values(await thresholds()).map(Number)).toEqual([2_500_000, 0]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);

    // A reload shows what the account holds; back to the site's default for the balance.
    await page.reload();
    expect(await section.locator('input[name="quota_alert_threshold"]').inputValue()).toBe('2,500,000');
    await section.getByTestId('alert-quota_alert_threshold-mode').getByText('Site default').click();
    await section.getByTestId('alert-save').click();
    await expect.poll(async () => (await thresholds()).quota_alert_threshold).toBeNull();
  });

  it('fits 390 px and speaks Chinese', async () => {
    const page = await openAlerts(MOBILE, 'zh-CN');
    await page.getByText('告警').first().waitFor();
    await page.getByText('发送测试').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  });
});
