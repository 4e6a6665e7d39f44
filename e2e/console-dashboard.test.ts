import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../server/src/test-support/openai-double.js';
import { MOBILE, loginThroughForm, startHarness, type Harness } from './support/harness.js';
import { createChannel, relayChat, tokenKey } from './support/seed.js';

/** The dashboard: empty before any request, then the relayed requests per day and per model. */
describe('console: dashboard', () => {
  let harness: Harness;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    harness = await startHarness();
    upstream = await startOpenAiDouble();
  });
  afterAll(async () => {
    await upstream?.close();
    await harness?.close();
  });

  it('shows the usage of a relay request, for the caller and across users, one user and one channel', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/dashboard');
    await page.getByTestId('dashboard-empty').waitFor();

    const root = await harness.root();
    await createChannel(root, upstream.url);
    const created = await root.post('/api/token/', {
      name: 'charts',
      remain_quota: 500000,
      expired_time: -1,
    });
    expect(created.body.success, created.text).toBe(true);
    const key = await tokenKey(root, 'charts');
    await relayChat(harness.url, key);
    await relayChat(harness.url, key);
    await harness.test.sluice.idle();

    await page.reload();
    await page.getByTestId('total-requests').filter({ hasText: /^2$/ }).waitFor();
    await page.getByTestId('model-row').filter({ hasText: 'gpt-4o-mini' }).waitFor();
    await page.getByTestId('chart-requests').locator('svg.recharts-surface').first().waitFor();

    const scope = async (label: string) => {
      await page.getByTestId('dashboard-scope').click();
      await page.getByRole('option', { name: label }).click();
    };
    await scope('All users');
    await page.getByTestId('total-requests').filter({ hasText: /^2$/ }).waitFor();
    await scope('One user');
    await page.getByTestId('dashboard-username').fill('nobody');
    await page.getByTestId('dashboard-empty').waitFor();
    await page.getByTestId('dashboard-username').fill('root');
    await page.getByTestId('total-requests').filter({ hasText: /^2$/ }).waitFor();
    await scope('One channel');
    await page.getByTestId('dashboard-channel').fill('1');
    await page.getByTestId('total-requests').filter({ hasText: /^2$/ }).waitFor();

    await page.getByText('Last 30 days').click();
    await page.getByTestId('total-requests').filter({ hasText: /^2$/ }).waitFor();
  });

  it('fits 390 px', async () => {
    const page = await harness.newPage({ viewport: MOBILE });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/dashboard');
    await page.getByTestId('chart-tokens').locator('svg.recharts-surface').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  });
});
