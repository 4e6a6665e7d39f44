import { readFile, stat } from 'node:fs/promises';
import { basename, extname, join, normalize, resolve, sep } from 'node:path';
import type { Context } from 'hono';
import { chooseEncoding, type Encoding } from './content-encoding.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** A file whose name carries its content hash (Vite's `name-Hash8.js`) never changes: a year, immutable. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Other files (logo, icons) may change on a redeploy under the same name. */
const WEEK = 'public, max-age=604800';
/** index.html names the current hashed files: asked for again every time. */
const NO_CACHE = 'no-cache';

const HASHED = /-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;
/** Where Vite puts the hashed files: a name missing there is a stale chunk, not a route. */
const ASSETS = '/assets/';

/** The copies the build writes beside a text file (web/vite-plugins/precompress.ts). */
const SUFFIX: Record<Exclude<Encoding, 'identity'>, string> = { br: '.br', gzip: '.gz' };

const isFile = async (path: string): Promise<boolean> => {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
};

/**
 * Serves the built console from `root`: a file when the path names one, otherwise index.html so the
 * single-page app routes it (a missing `/assets/` file is a 404: an old chunk, not a route). A file
 * with a brotli or gzip copy beside it is sent compressed when `Accept-Encoding` takes it, with
 * `Vary: Accept-Encoding`. Hashed files are cached for a year as immutable; index.html never.
 */
export const consoleStatic = (root: string) => {
  const base = resolve(root);
  const index = join(base, 'index.html');
  const fileOf = async (path: string): Promise<string | undefined> => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    const full = normalize(join(base, decoded));
    if (full !== base && !full.startsWith(base + sep)) return undefined;
    return (await isFile(full)) ? full : undefined;
  };

  /** The file, or its compressed copy the client accepts, with the headers that say which. */
  const send = async (c: Context, file: string, cacheControl: string): Promise<Response> => {
    const available: Encoding[] = [];
    for (const encoding of ['br', 'gzip'] as const)
      if (await isFile(file + SUFFIX[encoding])) available.push(encoding);
    const encoding = chooseEncoding(c.req.header('accept-encoding'), available);
    const body = await readFile(encoding === 'identity' ? file : file + SUFFIX[encoding]);
    c.header('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    c.header('Cache-Control', cacheControl);
    if (available.length > 0) c.header('Vary', 'Accept-Encoding');
    if (encoding !== 'identity') c.header('Content-Encoding', encoding);
    return c.body(body);
  };

  return async (c: Context): Promise<Response> => {
    const path = c.req.path;
    const file = path === '/' ? undefined : await fileOf(path);
    if (file === index) return send(c, file, NO_CACHE);
    if (file) return send(c, file, HASHED.test(basename(file)) ? IMMUTABLE : WEEK);
    if (path.startsWith(ASSETS)) return c.text('Not Found', 404);
    if (!(await isFile(index)))
      return c.text('The console is not built: run `npm run build` (npm start does it).', 503);
    return send(c, index, NO_CACHE);
  };
};
