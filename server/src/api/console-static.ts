import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { Context } from 'hono';

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

const WEEK = 'public, max-age=604800';

/**
 * Serves the built console from `root`: a file when the path names one (cached a week), otherwise
 * index.html (never cached) so the single-page app routes it.
 */
export const consoleStatic = (root: string) => {
  const base = resolve(root);
  const fileOf = async (path: string): Promise<string | undefined> => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    const full = normalize(join(base, decoded));
    if (full !== base && !full.startsWith(base + sep)) return undefined;
    try {
      return (await stat(full)).isFile() ? full : undefined;
    } catch {
      return undefined;
    }
  };

  return async (c: Context): Promise<Response> => {
    const file = c.req.path === '/' ? undefined : await fileOf(c.req.path);
    if (file) {
      c.header('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
      c.header('Cache-Control', WEEK);
      return c.body(await readFile(file));
    }
    try {
      const index = await readFile(join(base, 'index.html'));
      c.header('Cache-Control', 'no-cache');
      return c.html(index.toString('utf8'));
    } catch {
      return c.text('The console is not built: run `npm run build` (npm start does it).', 503);
    }
  };
};
