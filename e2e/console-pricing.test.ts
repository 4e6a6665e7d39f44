import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../server/src/test-support/openai-double.js';
import { consumeLogs } from '../server/src/test-support/relay-helpers.js';
import { DESKTOP, MOBILE, loginThroughForm, startHarness, type Harness } from './support/harness.js';
import { createChannel, relayChat, setOption, tokenKey } from './support/seed.js';

const MODEL = 'house-model';
const USAGE = { prompt_tokens: 3000, completion_tokens: 400 };

/** Issue 19's price list, at 1280 px (light) and 390 px (dark), against a request's real bill. */
describe('console: the price list of issue 19', () => {
  let harness: Harness;
  let upstream: OpenAiDouble;
  let billed = 0;

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    harness = await startHarness();
    const root = await harness.root();
    await setOption(root, 'ModelRatio', JSON.stringify({ [MODEL]: 0.75 }));
    await setOption(root, 'CompletionRatio', JSON.stringify({ [MODEL]: 2.5 }));
    await setOption(root, 'GroupRatio', JSON.stringify({ default: 1.6, vip: 1, svip: 1 }));
    await createChannel(root, upstream.url, `${MODEL},gpt-4o`);
    const created = await root.post('/api/token/', {
      name: 'pricing',
      remain_quota: 0,
      unlimited_quota: true,
    });
    expect(created.body.success, created.text).toBe(true);
    upstream.usage = USAGE;
    await relayChat(harness.url, await tokenKey(root, 'pricing'), MODEL);
    await harness.test.sluice.idle();
    const logs = await consumeLogs(harness.test.sluice.database.db, 1);
    expect(logs).toHaveLength(1);
    billed = logs[0]?.quota ?? 0;
  });
  afterAll(async () => {
    await harness?.close();
    await upstream?.close();
  });

  const row = (page: Page, model: string) =>
    page.locator(`[data-testid="pricing-row"][data-model="${model}"]`);
  const cell = (page: Page, column: string) => row(page, MODEL).getByTestId(`pricing-${column}`).innerText();
  const units = (text: string) => Number(text.replaceAll(',', ''));

  it.each([
    ['desktop, light', DESKTOP, 'light'],
    ['390 px, dark', MOBILE, 'dark'],
  ] as const)('shows the prices the request was billed at (%s)', async (_, viewport, colorScheme) => {
    const page = await harness.newPage({ viewport, colorScheme });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/pricing');
    await row(page, MODEL).waitFor();
    expect(await page.getByTestId('pricing-group').innerText()).toContain('×1.6');
    // 0.75 × 1.6 = $2.40 per 1M input tokens, × 2.5 = $6.00 per 1M output tokens.
    expect(await cell(page, 'input')).toBe('$2.40');
    expect(await cell(page, 'output')).toBe('$6.00');
    await page.getByTestId('pricing-currency').getByText('Quota').click();
    await expect.poll(() => cell(page, 'input')).toBe('1,200,000');
    const input = units(await cell(page, 'input'));
    const output = units(await cell(page, 'output'));
    expect((USAGE.prompt_tokens * input + USAGE.completion_tokens * output) / 1_000_000).toBe(billed);
    expect(billed).toBe(4800);
    // Search and the owner filter narrow the list.
    await page.getByTestId('pricing-search').fill('gpt');
    await expect.poll(() => page.getByTestId('pricing-row').count()).toBe(1);
    expect(await row(page, 'gpt-4o').count()).toBe(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      viewport.width,
    );
    expect(await page.locator('html').getAttribute('data-mantine-color-scheme')).toBe(colorScheme);
  });

  it('refuses a visitor unless the price list is public', async () => {
    const root = await harness.root();
    const visitor = await harness.newPage();
    expect((await visitor.request.get('/api/pricing')).status()).toBe(401);
    await visitor.goto('/pricing');
    await visitor.waitForURL('**/login');
    expect(await visitor.getByTestId('nav').getByText('Pricing').count()).toBe(0);
    await setOption(root, 'PricingPublic', 'true');
    try {
      const open = await harness.newPage({ viewport: MOBILE });
      await open.goto('/pricing');
      await row(open, MODEL).waitFor();
      expect(await open.getByTestId('pricing-group').innerText()).toContain('default group');
      expect(await cell(open, 'input')).toBe('$2.40');
      expect((await open.request.get('/api/pricing')).status()).toBe(200);
    } finally {
      await setOption(root, 'PricingPublic', 'false');
    }
  });
});
