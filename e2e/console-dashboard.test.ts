import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../server/src/test-support/openai-double.js';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { DESKTOP, MOBILE, loginThroughForm, startHarness, type Harness } from './support/harness.js';
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

  it.each([
    ['desktop', DESKTOP],
    ['phone', MOBILE],
  ] as const)('labels every axis tick once (%s)', async (_, viewport) => {
    // Usage whose quota ticks read $0.00, $0.00, $0.01, $0.01 with two decimals.
    const now = Math.floor(Date.now() / 1000);
    await harness.test.sluice.database.db
      .insertInto('logs')
      .values(
        [6150, 1200, 33].map((quota, index) => ({
          user_id: 1,
          username: 'root',
          created_at: now - index * 86_400,
          type: LOG_TYPE.consume,
          content: '',
          model_name: index === 0 ? 'axis-model' : 'gpt-4o-mini',
          quota,
          prompt_tokens: 7 + index,
          completion_tokens: 5,
          channel_id: 1,
          elapsed_time: 0,
          is_stream: false,
          system_prompt_reset: false,
        })),
      )
      .execute();
    const page = await harness.newPage({ viewport });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/dashboard');
    for (const chart of ['chart-requests', 'chart-quota', 'chart-tokens', 'chart-models']) {
      const axis = page
        .getByTestId(chart)
        .locator(chart === 'chart-models' ? '.recharts-xAxis-tick-labels' : '.recharts-yAxis-tick-labels')
        .locator('.recharts-cartesian-axis-tick-value');
      await axis.first().waitFor();
      const labels = await axis.allTextContents();
      expect(labels.length, chart).toBeGreaterThan(1);
      expect(new Set(labels).size, `${chart}: ${labels.join(' | ')}`).toBe(labels.length);
    }
  });
});
