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

  it('fits 390 px and speaks Chinese', async () => {
    const page = await openAlerts(MOBILE, 'zh-CN');
    await page.getByText('告警').first().waitFor();
    await page.getByText('发送测试').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  });
});
