import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  DESKTOP,
  MOBILE,
  loginThroughForm,
  startHarness,
  toastTexts,
  type Harness,
} from './support/harness.js';
import { createChannel } from './support/seed.js';

const VIEWPORTS = [
  ['desktop', DESKTOP],
  ['phone', MOBILE],
] as const;

/** A model a channel serves that no ratio prices. */
const UNPRICED = 'sluice-unpriced-e2e';

type OptionList = { key: string; value: string }[];

/** Issue 21's ratio editor (Settings → Ratios), at 1280 and 390 px. */
describe('console: ratios of issue 21', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
    // Nothing listens on port 9: the channel is never called, only its models are read.
    await createChannel(await harness.root(), 'http://127.0.0.1:9', `gpt-4,${UNPRICED}`);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const options = async (): Promise<OptionList> =>
    (await (await harness.root()).get('/api/option/')).body.data as OptionList;
  const ratioOf = async (key: string, model: string): Promise<number | undefined> => {
    const value = (await options()).find((option) => option.key === key)?.value ?? '{}';
    return (JSON.parse(value) as Record<string, number>)[model];
  };

  /** Each case starts from the shipped ratios. */
  const resetRatios = async () => {
    const answer = await (
      await harness.root()
    ).put('/api/option/batch', [
      { key: 'ModelRatio', value: '{}' },
      { key: 'CompletionRatio', value: '{}' },
      { key: 'GroupRatio', value: '{"default":1,"vip":1,"svip":1}' },
    ]);
    expect(answer.body.success, answer.text).toBe(true);
  };

  const ratioPage = async (
    viewport: { width: number; height: number },
    colorScheme: 'light' | 'dark' = 'light',
  ): Promise<Page> => {
    await resetRatios();
    const page = await harness.newPage({ viewport, colorScheme });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/setting?tab=operation');
    await page.getByTestId('section-ratio').waitFor();
    return page;
  };

  const fitsWidth = async (page: Page, width: number) =>
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

  const row = (page: Page, model: string) => page.locator(`[data-testid="price-row"][data-model="${model}"]`);

  it.each(VIEWPORTS)(
    'saves gpt-4 at 20 instead of 15, and it stays after a reload (%s)',
    async (_, viewport) => {
      const page = await ratioPage(viewport);
      await page.getByTestId('ratio-view-json').click();
      const json = page.getByTestId('option-ModelRatio');
      const text = await json.inputValue();
      expect(text).toContain('"gpt-4": 15,');
      await json.fill(text.replace('"gpt-4": 15,', '"gpt-4": 20,'));
      await page.getByTestId('save-ratio').click();
      await expect.poll(() => ratioOf('ModelRatio', 'gpt-4')).toBe(20);
      expect(harness.test.sluice.services.options.values.ModelRatio['gpt-4']).toBe(20);
      expect(await page.getByTestId('save-refused-ratio').count()).toBe(0);

      await page.reload();
      await page.getByTestId('ratio-view-json').click();
      await expect.poll(() => page.getByTestId('option-ModelRatio').inputValue()).toContain('"gpt-4": 20,');
      await page.getByTestId('ratio-view-table').click();
      await page.getByTestId('price-search').fill('gpt-4');
      await row(page, 'gpt-4').getByTestId('price-input').filter({ hasText: '$40.00' }).waitFor();
      await fitsWidth(page, viewport.width);
    },
  );

  it.each(VIEWPORTS)(
    'refuses the whole save when one field is bad, names it, and stores nothing (%s)',
    async (_, viewport) => {
      const page = await ratioPage(viewport);
      const before = await options();
      await page.getByTestId('ratio-view-json').click();
      const json = page.getByTestId('option-ModelRatio');
      const text = await json.inputValue();
      await json.fill(text.replace('"gpt-4": 15,', '"gpt-4": 20,\n  "x": -1,'));
      await page.getByTestId('option-CompletionRatio').fill('{"gpt-4": 2.5}');
      await page.getByTestId('option-GroupRatio').fill('{"default": 1, "vip": 0.5}');
      await page.getByTestId('save-ratio').click();
      await page
        .getByTestId('save-refused-ratio')
        .filter({ hasText: 'Nothing was saved: ModelRatio: "x" must be a non-negative number' })
        .waitFor();
      await expect
        .poll(() => toastTexts(page))
        .toContainEqual(expect.stringContaining('ModelRatio: "x" must be a non-negative number'));
      expect(await json.getAttribute('aria-invalid')).toBe('true');
      expect(await options()).toEqual(before);
      expect(harness.test.sluice.services.options.values.GroupRatio).toEqual({ default: 1, vip: 1, svip: 1 });
      // The edits are still there to fix: without the bad entry, everything is saved at once.
      await json.fill((await json.inputValue()).replace('\n  "x": -1,', ''));
      await page.getByTestId('save-ratio').click();
      await expect.poll(() => ratioOf('GroupRatio', 'vip')).toBe(0.5);
      expect(await ratioOf('ModelRatio', 'gpt-4')).toBe(20);
      expect(await ratioOf('CompletionRatio', 'gpt-4')).toBe(2.5);
      await fitsWidth(page, viewport.width);
    },
  );

  it.each(VIEWPORTS)(
    'searches, edits and resets a price, and prices a served model without one (%s)',
    async (_, viewport) => {
      const page = await ratioPage(viewport);
      await page.getByTestId('price-search').fill('gpt-4o-mini');
      const mini = row(page, 'gpt-4o-mini');
      await mini.waitFor();
      for (const shown of await page.getByTestId('price-row').all())
        expect(await shown.getAttribute('data-model')).toContain('gpt-4o-mini');
      expect(await mini.getAttribute('data-state')).toBe('default');
      await mini.getByTestId('price-input').filter({ hasText: '$0.15' }).waitFor();
      await mini.getByTestId('price-edit').click();
      await page.getByTestId('price-model-ratio').fill('0.1');
      await page
        .getByTestId('price-preview')
        .filter({ hasText: 'Input $0.20 · output $0.80 per 1M tokens' })
        .waitFor();
      await page.getByTestId('price-apply').click();
      await expect.poll(() => mini.getAttribute('data-state')).toBe('custom');
      await page.getByTestId('save-ratio').click();
      await expect.poll(() => ratioOf('ModelRatio', 'gpt-4o-mini')).toBe(0.1);

      await page.reload();
      await page.getByTestId('price-search').fill('gpt-4o-mini');
      await expect.poll(() => mini.getAttribute('data-state')).toBe('custom');
      await mini.getByTestId('price-reset').click();
      await expect.poll(() => mini.getAttribute('data-state')).toBe('default');
      await page.getByTestId('save-ratio').click();
      await expect.poll(() => ratioOf('ModelRatio', 'gpt-4o-mini')).toBe(0.075);

      await page.getByTestId('price-search').fill('');
      await page.getByTestId('price-filter').getByText('Without a ratio (1)').click();
      await expect.poll(() => page.getByTestId('price-row').count()).toBe(1);
      const unpriced = row(page, UNPRICED);
      expect(await unpriced.getAttribute('data-state')).toBe('missing');
      await unpriced.getByTestId('price-edit').click();
      await page.getByTestId('price-model-ratio').fill('1.5');
      await page.getByTestId('price-completion-ratio').fill('2');
      await page.getByTestId('price-apply').click();
      await page.getByTestId('price-filter').getByText('Without a ratio (0)').waitFor();
      await fitsWidth(page, viewport.width);
      await page.getByTestId('save-ratio').click();
      await expect.poll(() => ratioOf('ModelRatio', UNPRICED)).toBe(1.5);
      expect(await ratioOf('CompletionRatio', UNPRICED)).toBe(2);
    },
  );

  it('sets a group’s limits and routing in its row, on a phone in dark mode (issue 16)', async () => {
    const page = await ratioPage(MOBILE, 'dark');
    expect(await page.locator('html').getAttribute('data-mantine-color-scheme')).toBe('dark');
    const vip = page.locator('[data-testid="group-limit-row"][data-group="vip"]');
    await vip.locator('input[name="rpm_limit"]').fill('60');
    await vip.locator('input[name="concurrency_limit"]').fill('10000000000000000000');
    await vip.getByTestId('group-limit-invalid').waitFor();
    await vip.locator('input[name="concurrency_limit"]').fill('5');
    await vip.getByTestId('group-limit-invalid').waitFor({ state: 'detached' });
    await vip.locator('select[name="strategy"]').selectOption('least_in_flight');
    await fitsWidth(page, MOBILE.width);
    await page.getByTestId('save-ratio').click();
    const { options: live } = harness.test.sluice.services;
    await expect.poll(() => live.values.GroupRateLimits).toBe('{"vip":{"rpm":60,"concurrency":5}}');
    expect(live.values.GroupRoutingStrategies).toBe('{"vip":"least_in_flight"}');
    await page.reload();
    await expect.poll(() => vip.locator('input[name="rpm_limit"]').inputValue()).toBe('60');
    expect(await vip.locator('select[name="strategy"]').inputValue()).toBe('least_in_flight');
  });
});
