import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../server/src/test-support/openai-double.js';
import { consumeLogs } from '../server/src/test-support/relay-helpers.js';
import { MOBILE, loginThroughForm, pageErrors, startHarness, type Harness } from './support/harness.js';
import { createChannel, setOption } from './support/seed.js';

const MODEL = 'house-model';
const ROOT_ID = 1;
/** A model the playground offers images for (by its name). */
const VISION_MODEL = 'vision-model';
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const REPLY = 'Here is **bold** and `code`:\n\n```js\nconst answer = 42;\n```\n';

/** Issue 19's playground in Chromium against a real Sluice and a loopback OpenAI double. */
describe('console: the playground of issue 19', () => {
  let harness: Harness;
  let upstream: OpenAiDouble;

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    harness = await startHarness();
    const root = await harness.root();
    await setOption(root, 'ModelRatio', JSON.stringify({ [MODEL]: 0.75 }));
    await setOption(root, 'CompletionRatio', JSON.stringify({ [MODEL]: 2.5 }));
    await setOption(root, 'GroupRatio', JSON.stringify({ default: 1.6, vip: 1, svip: 1 }));
    await createChannel(root, upstream.url, `${MODEL},${VISION_MODEL}`);
    const created = await root.post('/api/token/', { name: 'play', remain_quota: 0, unlimited_quota: true });
    expect(created.body.success, created.text).toBe(true);
    upstream.reply = REPLY;
    upstream.usage = { prompt_tokens: 3000, completion_tokens: 400 };
  });
  afterAll(async () => {
    await harness?.close();
    await upstream?.close();
  });

  const openPlayground = async (options: Parameters<Harness['newPage']>[0] = {}) => {
    const page = await harness.newPage(options);
    await loginThroughForm(page, 'root', '123456');
    await page.waitForURL('**/user/edit');
    await page.goto('/playground');
    await page.getByTestId('playground-page').waitFor();
    // The key ('play', the only one) and the model (the key's only one) are picked by themselves.
    await expect.poll(() => page.getByTestId('playground-model').inputValue()).toBe(MODEL);
    return page;
  };

  const send = async (page: Page, text: string) => {
    await page.getByTestId('playground-input').fill(text);
    await page.getByTestId('playground-send').click();
  };

  const lastLogQuota = async () => {
    await harness.test.sluice.idle();
    const logs = await consumeLogs(harness.test.sluice.database.db, ROOT_ID);
    return { count: logs.length, quota: logs.at(-1)?.quota };
  };

  it('streams a reply in each client format, rendered as Markdown, with the cost the log row bills', async () => {
    const page = await openPlayground();
    const errors = pageErrors(page);
    // Each format as the client sends it, and the upstream call Sluice makes of it on an OpenAI channel.
    const formats = [
      ['OpenAI Chat Completions', '/v1/chat/completions'],
      ['Anthropic Messages', '/v1/chat/completions'],
      ['OpenAI Responses', '/v1/responses'],
    ] as const;
    for (const [index, [label, upstreamPath]] of formats.entries()) {
      await page.getByTestId('playground-format').click();
      await page.getByRole('option', { name: label, exact: true }).click();
      const before = (await lastLogQuota()).count;
      await send(page, `Hello ${index}`);
      const reply = page.getByTestId('playground-reply').nth(index);
      const stats = reply.getByTestId('playground-stats');
      await stats.waitFor();
      expect(await reply.locator('strong').innerText()).toBe('bold');
      expect(await reply.locator('pre code').innerText()).toContain('const answer = 42;');
      const shown = Number(await stats.getAttribute('data-quota'));
      // (3000 + 400 × 2.5) × 0.75 × 1.6 = 4800 quota, $0.0096 at 500 000 quota per dollar.
      expect(shown, label).toBe(4800);
      expect(await stats.innerText()).toContain('$0.009600 (4800 quota)');
      expect(await stats.innerText()).toMatch(/first byte \d+ ms.*total \d+ ms/s);
      const log = await lastLogQuota();
      expect(log.count, label).toBe(before + 1);
      expect(log.quota, label).toBe(shown);
      expect(upstream.requests.at(-1)?.path, label).toBe(upstreamPath);
      expect(upstream.requests.at(-1)?.json?.['stream'], label).toBe(true);
    }
    expect(errors).toEqual([]);
  });

  it('stops a reply: the upstream sees its connection closed, and the page shows what the log row bills', async () => {
    const page = await openPlayground();
    let release = () => undefined as void;
    upstream.gate = new Promise<void>((resolve) => (release = resolve));
    upstream.aborted.value = false;
    try {
      const requests = upstream.requests.length;
      const before = (await lastLogQuota()).count;
      await send(page, 'Tell me a long story');
      await expect.poll(() => upstream.requests.length).toBe(requests + 1);
      await page.getByTestId('playground-stop').click();
      await expect.poll(() => upstream.aborted.value, { timeout: 5000 }).toBe(true);
      await page.getByTestId('playground-stopped').waitFor();
      await page.getByTestId('playground-send').waitFor();
      // A stopped stream has no usage: the page finds its row by the request id and shows its cost.
      const stats = page.getByTestId('playground-reply').last().getByTestId('playground-stats');
      await stats.waitFor();
      const log = await lastLogQuota();
      expect(log.count).toBe(before + 1);
      expect(log.quota).toBeGreaterThan(0);
      expect(Number(await stats.getAttribute('data-quota'))).toBe(log.quota);
    } finally {
      release();
      upstream.gate = undefined;
    }
  });

  it('regenerates the last reply and resends an edited message, and keeps the conversation for export', async () => {
    const page = await openPlayground();
    await send(page, 'First question');
    await page.getByTestId('playground-stats').waitFor();
    const requests = upstream.requests.length;
    await page.getByTestId('playground-regenerate').click();
    await expect.poll(() => upstream.requests.length).toBe(requests + 1);
    await expect.poll(() => page.getByTestId('playground-stats').count()).toBe(1);
    await page.getByTestId('playground-edit').click();
    await page.getByTestId('playground-edit-text').fill('Edited question');
    await page.getByTestId('playground-resend').click();
    await expect.poll(() => upstream.requests.length).toBe(requests + 2);
    await expect.poll(() => page.getByTestId('playground-stats').count()).toBe(1);
    const messages = upstream.requests.at(-1)?.json?.['messages'] as { role: string; content: string }[];
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Edited question' });
    expect(await page.getByTestId('playground-user-turn').innerText()).toContain('Edited question');
    // Kept in the browser: a reload shows it again, and the export holds it.
    await page.reload();
    await page.getByTestId('playground-reply').waitFor();
    const download = page.waitForEvent('download');
    await page.getByTestId('playground-export').click();
    const file = await (await download).path();
    const { readFile } = await import('node:fs/promises');
    const exported = JSON.parse(await readFile(file, 'utf8')) as {
      conversations: { turns: { text: string }[] }[];
    };
    expect(exported.conversations[0]?.turns.map((turn) => turn.text)).toEqual(['Edited question', REPLY]);
  });

  it('sends an image as a data URL part to a model that takes images', async () => {
    const page = await openPlayground();
    expect(await page.getByTestId('playground-attach').isDisabled()).toBe(true);
    await page.getByTestId('playground-model').click();
    await page.getByRole('option', { name: VISION_MODEL, exact: true }).click();
    await page.locator('input[type="file"]').setInputFiles({
      name: 'dot.png',
      mimeType: 'image/png',
      buffer: Buffer.from(PNG, 'base64'),
    });
    await page.getByTestId('playground-attached').waitFor();
    await send(page, 'What is this?');
    await page.getByTestId('playground-stats').waitFor();
    const sent = upstream.requests.at(-1)?.json;
    expect(sent?.['model']).toBe(VISION_MODEL);
    expect((sent?.['messages'] as { content: unknown }[]).at(-1)?.content).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
    ]);
    expect(await page.getByTestId('playground-user-turn').locator('img').count()).toBe(1);
  });

  it('fits 390 px in Chinese, settings open, with a reply', async () => {
    const page = await openPlayground({ viewport: MOBILE, locale: 'zh-CN' });
    await page.getByTestId('playground-settings-toggle').click();
    await page.getByTestId('playground-system').waitFor({ state: 'visible' });
    await send(page, '你好，请用一段很长很长的话介绍你自己，并且给出一段代码');
    await page.getByTestId('playground-stats').waitFor();
    expect(await page.getByTestId('playground-stats').innerText()).toContain('额度');
    expect(await page.getByTestId('playground-page').getByText('操练场').count()).toBeGreaterThan(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(MOBILE.width);
    for (const testId of [
      'playground-page',
      'playground-key',
      'playground-session-key',
      'playground-model',
      'playground-format',
      'playground-effort',
      'playground-conversation',
      'playground-export',
      'playground-reply',
      'playground-markdown',
      'playground-stats',
      'playground-input',
      'playground-send',
    ]) {
      const box = await page.getByTestId(testId).first().boundingBox();
      expect(box, testId).not.toBeNull();
      expect(box!.x, testId).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, testId).toBeLessThanOrEqual(MOBILE.width);
    }
  });
});
