import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialScripts } from './support/bundle.js';
import { DESKTOP, MOBILE, WEB_DIST, startHarness, type Harness } from './support/harness.js';

/** Issue 21: the console's files are sent precompressed, and the hashed ones cached for good. */
describe('console: compressed, long-cached assets', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('the build writes a brotli and a gzip copy of every initial script', () => {
    const scripts = initialScripts(readFileSync(join(WEB_DIST, 'index.html'), 'utf8'));
    for (const script of scripts)
      for (const suffix of ['.br', '.gz'])
        expect(existsSync(join(WEB_DIST, script + suffix)), script).toBe(true);
  });

  it.each([
    ['desktop', DESKTOP],
    ['phone', MOBILE],
  ] as const)(
    'Chromium gets brotli JavaScript cached as immutable, and an uncached index (%s)',
    async (_, viewport) => {
      const page = await harness.newPage({ viewport });
      const responses: Response[] = [];
      page.on('response', (response) => responses.push(response));
      await page.goto('/login');
      await page.getByTestId('login-submit').waitFor();

      const document = responses.find((response) => new URL(response.url()).pathname === '/login');
      const documentHeaders = await document?.allHeaders();
      expect(documentHeaders?.['cache-control']).toBe('no-cache');
      expect(documentHeaders?.['content-encoding']).toBe('br');

      const scripts = responses.filter((response) =>
        /\/assets\/.+\.js$/.test(new URL(response.url()).pathname),
      );
      expect(scripts.length).toBeGreaterThan(0);
      let sent = 0;
      let original = 0;
      for (const script of scripts) {
        const headers = await script.allHeaders();
        const path = new URL(script.url()).pathname;
        expect(headers['content-encoding'], path).toBe('br');
        expect(headers['vary'], path).toBe('Accept-Encoding');
        expect(headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
        expect(headers['content-type'], path).toMatch(/^text\/javascript/);
        sent += (await script.request().sizes()).responseBodySize;
        original += (await script.body()).length;
      }
      // What went over the wire is the compressed copy: far less than the scripts themselves.
      expect(sent).toBeLessThan(original / 3);
    },
  );

  it('sends gzip to a client without brotli and the plain file to one without either', async () => {
    const scripts = initialScripts(readFileSync(join(WEB_DIST, 'index.html'), 'utf8'));
    const url = `${harness.url}/${scripts[0] ?? ''}`;
    const gzip = await fetch(url, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    await gzip.arrayBuffer();
    const plain = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(readFileSync(join(WEB_DIST, scripts[0] ?? ''), 'utf8'));
  });
});
