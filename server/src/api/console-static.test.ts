import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleStatic } from './console-static.js';
import { chooseEncoding } from './content-encoding.js';

describe('chooseEncoding', () => {
  it.each([
    [undefined, ['br', 'gzip'], 'identity'],
    ['', ['br', 'gzip'], 'identity'],
    ['gzip, deflate, br, zstd', ['br', 'gzip'], 'br'],
    ['gzip, deflate', ['br', 'gzip'], 'gzip'],
    ['br;q=0, gzip', ['br', 'gzip'], 'gzip'],
    ['gzip;q=0.5, br;q=0.4', ['br', 'gzip'], 'gzip'],
    ['BR', ['br', 'gzip'], 'br'],
    ['*', ['br', 'gzip'], 'br'],
    ['*;q=0', ['br', 'gzip'], 'identity'],
    ['x-gzip', ['gzip'], 'gzip'],
    ['br', ['gzip'], 'identity'],
    ['identity', ['br', 'gzip'], 'identity'],
    ['gzip;q=abc', ['gzip'], 'identity'],
  ] as const)('Accept-Encoding %j with %j → %s', (header, available, expected) => {
    expect(chooseEncoding(header, available)).toBe(expected);
  });
});

describe('consoleStatic', () => {
  let root: string;
  let app: Hono;
  const script = `export const answer = "${'forty-two'.repeat(400)}";\n`;
  const index = '<!doctype html><title>Console</title>';

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'sluice-static-'));
    mkdirSync(join(root, 'assets'));
    writeFileSync(join(root, 'index.html'), index);
    writeFileSync(join(root, 'index.html.gz'), gzipSync(index));
    writeFileSync(join(root, 'assets', 'index-AbC123_x.js'), script);
    writeFileSync(join(root, 'assets', 'index-AbC123_x.js.br'), brotliCompressSync(script));
    writeFileSync(join(root, 'assets', 'index-AbC123_x.js.gz'), gzipSync(script));
    writeFileSync(join(root, 'assets', 'plain-Zz99Yy88.css'), 'body{margin:0}');
    writeFileSync(join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    app = new Hono();
    app.get('*', consoleStatic(root));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const get = (path: string, acceptEncoding?: string) =>
    app.request(path, acceptEncoding === undefined ? {} : { headers: { 'accept-encoding': acceptEncoding } });

  it('sends the brotli copy of a hashed script to a browser, cached for a year as immutable', async () => {
    const response = await get('/assets/index-AbC123_x.js', 'gzip, deflate, br, zstd');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(response.headers.get('vary')).toBe('Accept-Encoding');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBeLessThan(script.length / 10);
    expect(brotliDecompressSync(body).toString()).toBe(script);
  });

  it('sends gzip to a client without brotli, and the file itself to one that takes neither', async () => {
    const gzipped = await get('/assets/index-AbC123_x.js', 'gzip');
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).toString()).toBe(script);
    for (const header of [undefined, 'identity', 'br;q=0, gzip;q=0']) {
      const plain = await get('/assets/index-AbC123_x.js', header);
      expect(plain.headers.get('content-encoding'), header).toBeNull();
      expect(plain.headers.get('vary'), header).toBe('Accept-Encoding');
      expect(await plain.text(), header).toBe(script);
    }
  });

  it('sends a file without copies as it is, without Vary', async () => {
    const style = await get('/assets/plain-Zz99Yy88.css', 'br, gzip');
    expect(await style.text()).toBe('body{margin:0}');
    expect(style.headers.get('content-encoding')).toBeNull();
    expect(style.headers.get('vary')).toBeNull();
    expect(style.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const logo = await get('/logo.png', 'br, gzip');
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(logo.headers.get('cache-control')).toBe('public, max-age=604800');
  });

  it('never caches index.html, for / and every page, compressed when it can be', async () => {
    for (const path of ['/', '/token', '/user/edit', '/index.html']) {
      const response = await get(path, 'gzip, br');
      expect(response.headers.get('cache-control'), path).toBe('no-cache');
      expect(response.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-encoding'), path).toBe('gzip');
      expect(gunzipSync(Buffer.from(await response.arrayBuffer())).toString(), path).toBe(index);
    }
  });

  it('answers 404 for a missing asset instead of index.html', async () => {
    const response = await get('/assets/index-OldHash1.js', 'br');
    expect(response.status).toBe(404);
  });
});
