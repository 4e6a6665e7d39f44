import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../server/src/test-support/openai-double.js';
import { MOBILE, loginThroughForm, startHarness, toastTexts, type Harness } from './support/harness.js';
import { createChannel, relayChat, tokenKey } from './support/seed.js';

/**
 * Admin screens: a channel created through the form in front of a loopback OpenAI double, tested
 * (one and all), its balance read, relayed through and seen in the logs; bulk delete of disabled
 * channels; redemption codes created and downloaded.
 */
describe('console: channels and redemption codes', () => {
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

  it('creates a channel against the double, tests it, relays through it and shows the log', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/channel');
    await page.getByTestId('list-empty').waitFor();
    await page.getByTestId('channel-add').click();
    await page.waitForURL('**/channel/add');

    await page.getByTestId('channel-submit').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Please fill in the channel name and channel key!'));
    await page.locator('input[name="name"]').fill('double');
    await page.locator('input[name="key"]').fill('sk-upstream-double');
    await page.locator('input[name="base_url"]').fill(`${upstream.url}/`);
    await page.getByTestId('channel-submit').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Please select at least one model!'));
    await page.getByTestId('channel-models').fill('gpt-4o-mini');
    await page.getByTestId('channel-models').press('Enter');
    await page.getByTestId('channel-submit').click();
    await page.waitForURL('**/channel');
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('Channel created!'));

    const root = await harness.root();
    const found = await root.get('/api/channel/search?keyword=double');
    const [saved] = found.body.data as { id: number; base_url: string; models: string }[];
    expect(saved).toMatchObject({ base_url: upstream.url, models: 'gpt-4o-mini' });

    const row = page.getByTestId('channel-row').filter({ hasText: 'double' });
    await row.getByTestId('channel-response-time').filter({ hasText: 'Untested' }).waitFor();
    await row.getByTestId('channel-test').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(
        expect.stringMatching(/^Channel double tested successfully with gpt-4o-mini in \d+\.\d\d s\.$/),
      );
    await row
      .getByTestId('channel-response-time')
      .filter({ hasText: /^\d+\.\d\d s$/ })
      .waitFor();
    expect(upstream.requests.some((request) => request.path.endsWith('/chat/completions'))).toBe(true);

    // The double's billing answers: a $100 limit minus $12.345 used.
    await row.getByTestId('channel-balance').click();
    await row
      .getByTestId('channel-balance')
      .filter({ hasText: /^\$87\.6[56]$/ })
      .waitFor();

    await root.post('/api/token/', { name: 'relay', remain_quota: 500000, expired_time: -1 });
    await relayChat(harness.url, await tokenKey(root, 'relay'));
    await harness.test.sluice.idle();
    await page.goto('/log');
    const log = page.getByTestId('log-row').filter({ hasText: 'gpt-4o-mini' });
    await log.first().waitFor();
    expect(await log.first().innerText()).toContain('relay');
  });

  it('edits the channel with a blank key, tests all channels and deletes the disabled ones', async () => {
    const root = await harness.root();
    await createChannel(root, 'http://127.0.0.1:9');
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/channel');

    const row = page.getByTestId('channel-row').filter({ hasText: 'double' });
    await row.getByTestId('channel-edit').click();
    await page.waitForURL('**/channel/edit/*');
    await expect.poll(() => page.locator('input[name="name"]').inputValue()).toBe('double');
    expect(await page.locator('textarea[name="key"]').inputValue()).toBe('');
    expect(await page.getByTestId('channel-batch').count()).toBe(0);
    await page.locator('input[name="name"]').fill('double-edited');
    await page.getByTestId('channel-submit').click();
    await page.waitForURL('**/channel');
    await expect.poll(() => toastTexts(page)).toContainEqual(expect.stringContaining('Channel updated!'));
    // The key was kept: the edited channel still answers a test.
    const edited = page.getByTestId('channel-row').filter({ hasText: 'double-edited' });
    await edited.getByTestId('channel-test').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('Channel double-edited tested successfully'));

    await page.getByTestId('channel-test-all').click();
    await expect
      .poll(() => toastTexts(page), { timeout: 20_000 })
      .toContainEqual(expect.stringMatching(/^Channel test finished: 2 tested, \d failed\.$/));

    const broken = page.getByTestId('channel-row').filter({ hasText: 'e2e-upstream' });
    if ((await broken.getByTestId('channel-toggle').innerText()) === 'Disable')
      await broken.getByTestId('channel-toggle').click();
    await broken
      .getByTestId('channel-status')
      .filter({ hasText: /disabled/ })
      .waitFor();
    await page.getByTestId('channel-delete-disabled').click();
    await page.getByTestId('confirm').click();
    await expect
      .poll(() => toastTexts(page))
      .toContainEqual(expect.stringContaining('1 disabled channels deleted!'));
    await expect.poll(() => page.getByTestId('channel-row').count()).toBe(1);
  });

  it('shows the channel list without overflow at 390 px', async () => {
    const page = await harness.newPage({ viewport: MOBILE });
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/channel');
    await page.getByTestId('channel-row').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    await page.goto('/channel/add');
    await page.getByTestId('channel-form').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
  });

  it('creates redemption codes and downloads them as a text file named after them', async () => {
    const page = await harness.newPage();
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/redemption');
    await page.getByTestId('list-empty').waitFor();
    await page.getByTestId('redemption-add').click();
    await page.waitForURL('**/redemption/add');
    await page.locator('input[name="name"]').fill('spring');
    await page.locator('input[name="count"]').fill('3');
    const download = page.waitForEvent('download');
    await page.getByTestId('redemption-submit').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('spring.txt');
    const codes = readFileSync(await file.path(), 'utf8')
      .split('\n')
      .filter(Boolean);
    expect(codes).toHaveLength(3);
    for (const code of codes) expect(code).toMatch(/^[0-9a-f]{32}$/);

    await page.waitForURL('**/redemption');
    await expect.poll(() => page.getByTestId('redemption-row').count()).toBe(3);
    const listed = (await (await harness.root()).get('/api/redemption/search?keyword=spring')).body.data as {
      key: string;
    }[];
    expect(listed.map((code) => code.key).sort()).toEqual([...codes].sort());
  });
});
