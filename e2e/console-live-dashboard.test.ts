import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../server/src/test-support/openai-double.js';
import { MOBILE, loginThroughForm, pageErrors, startHarness, type Harness } from './support/harness.js';
import { createChannel, relayChat, tokenKey } from './support/seed.js';

/** The dashboard's live section: relayed requests show up without a reload, at 390 px. */
describe('console: live dashboard', () => {
  let harness: Harness;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    harness = await startHarness();
    upstream = await startOpenAiDouble();
    upstream.usage = { prompt_tokens: 50, completion_tokens: 10, cached_tokens: 25 };
  });
  afterAll(async () => {
    await upstream?.close();
    await harness?.close();
  });

  it('counts relayed requests as they come, with charts and tables that fit 390 px', async () => {
    const page = await harness.newPage({ viewport: MOBILE });
    const errors = pageErrors(page);
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/dashboard');
    await page.getByTestId('live-hour-requests').filter({ hasText: /^0$/ }).waitFor();

    const root = await harness.root();
    await createChannel(root, upstream.url);
    const created = await root.post('/api/token/', { name: 'live', remain_quota: 500000, expired_time: -1 });
    expect(created.body.success, created.text).toBe(true);
    const key = await tokenKey(root, 'live');
    for (let index = 0; index < 3; index += 1) await relayChat(harness.url, key);

    // No reload: the section reads the counters again on its own.
    await page.getByTestId('live-hour-requests').filter({ hasText: /^3$/ }).waitFor({ timeout: 15_000 });
    await page.getByTestId('live-hour-tokens').filter({ hasText: /^180$/ }).waitFor();
    await page.getByTestId('live-model-row').filter({ hasText: '50.0%' }).waitFor();
    await page.getByTestId('live-channel-row').filter({ hasText: '0.0%' }).waitFor();
    await page.getByTestId('live-chart-requests').locator('svg.recharts-surface').first().waitFor();
    await page.getByTestId('live-chart-tokens').locator('svg.recharts-surface').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    const ticks = await page
      .getByTestId('live-chart-requests')
      .locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value')
      .allTextContents();
    expect(ticks.length).toBeGreaterThan(1);
    expect(ticks.length).toBeLessThanOrEqual(5);
    expect(errors).toEqual([]);
  });
});
