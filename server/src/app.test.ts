import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDriver from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ID_HEADER } from './app.js';
import type { Sluice } from './boot.js';
import { apiClient, type ApiClient } from './test-support/api-client.js';
import { createTestDatabase } from './test-support/test-databases.js';
import { bootWith, startTestSluice, type TestSluice } from './test-support/test-sluice.js';

const INDEX_HTML =
  '<!doctype html><html><head><title>Sluice console</title></head><body><div id="root"></div></body></html>';
const APP_JS = 'console.log("the sluice console");\n';
const SECRET = 'root:x:0:0:this-must-never-be-served';

/** A built console in a temp dir, with a file next to it that must never be served. */
const makeWebDist = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-web-'));
  const dist = join(dir, 'dist');
  mkdirSync(join(dist, 'assets'), { recursive: true });
  writeFileSync(join(dist, 'index.html'), INDEX_HTML);
  writeFileSync(join(dist, 'assets', 'app.js'), APP_JS);
  writeFileSync(join(dist, 'assets', 'style.css'), 'body{margin:0}');
  writeFileSync(join(dir, 'secret.txt'), SECRET);
  mkdirSync(join(dir, 'empty'));
  return {
    dist,
    empty: join(dir, 'empty'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
};

/** Runs `body` against a fresh Sluice booted with `env`, then closes it. */
const withSluice = async (
  env: Record<string, string>,
  body: (client: ApiClient, test: TestSluice) => Promise<void>,
) => {
  const test = await startTestSluice('sqlite', env);
  try {
    await body(apiClient(test.sluice.app), test);
  } finally {
    await test.close();
  }
};

const wrongLogin = (client: ApiClient) =>
  client.post('/api/user/login', { username: 'root', password: 'not-the-password' });

describe('IP rate limits through the app', () => {
  it('answers 429 with an empty body once GLOBAL_API_RATE_LIMIT is used up', async () => {
    await withSluice({ GLOBAL_API_RATE_LIMIT: '3' }, async (client) => {
      for (let call = 0; call < 3; call += 1) expect((await client.get('/api/status')).status).toBe(200);
      const refused = await client.get('/api/status');
      expect(refused.status).toBe(429);
      expect(refused.text).toBe('');
      expect(refused.headers.get(REQUEST_ID_HEADER.toLowerCase())).toMatch(/^\d+$/);
      // Every /api route shares the window, including unknown ones.
      expect((await client.get('/api/notice')).status).toBe(429);
      expect((await client.get('/api/option/')).status).toBe(429);
      expect((await client.post('/api/user/login', { username: 'root', password: '123456' })).status).toBe(
        429,
      );
      // The web console and the metrics have their own limits.
      expect((await client.get('/metrics')).status).toBe(200);
    });
  });

  it('limits logins with CRITICAL_RATE_LIMIT while the other /api routes still work', async () => {
    await withSluice({ CRITICAL_RATE_LIMIT: '2' }, async (client) => {
      expect((await wrongLogin(client)).body.success).toBe(false);
      expect((await client.login('root', '123456')).status).toBe(200);
      const refused = await client.post('/api/user/login', { username: 'root', password: '123456' });
      expect(refused.status).toBe(429);
      expect(refused.text).toBe('');
      // Registration shares the critical window.
      expect(
        (await client.post('/api/user/register', { username: 'newbie', password: 'password-1' })).status,
      ).toBe(429);
      const status = await client.get('/api/status');
      expect(status.status).toBe(200);
      expect(status.body.success).toBe(true);
      // The session from the second login is still good: only the critical routes are limited.
      expect((await client.get('/api/user/self')).body.success).toBe(true);
    });
  });

  it('limits the console with GLOBAL_WEB_RATE_LIMIT, not the API', async () => {
    const web = makeWebDist();
    try {
      await withSluice({ GLOBAL_WEB_RATE_LIMIT: '2', WEB_DIST_PATH: web.dist }, async (client) => {
        expect((await client.get('/')).status).toBe(200);
        expect((await client.get('/assets/app.js')).status).toBe(200);
        const refused = await client.get('/token');
        expect(refused.status).toBe(429);
        expect(refused.text).toBe('');
        expect((await client.get('/api/status')).status).toBe(200);
      });
    } finally {
      web.remove();
    }
  });

  it('disables every limit with DEBUG=true', async () => {
    const web = makeWebDist();
    try {
      await withSluice(
        {
          DEBUG: 'true',
          GLOBAL_API_RATE_LIMIT: '1',
          CRITICAL_RATE_LIMIT: '1',
          GLOBAL_WEB_RATE_LIMIT: '1',
          WEB_DIST_PATH: web.dist,
        },
        async (client) => {
          for (let call = 0; call < 5; call += 1) {
            expect((await client.get('/api/status')).status).toBe(200);
            expect((await wrongLogin(client)).status).toBe(200);
            expect((await client.get('/')).status).toBe(200);
          }
        },
      );
    } finally {
      web.remove();
    }
  });

  it('disables a limit set to 0', async () => {
    const web = makeWebDist();
    try {
      await withSluice(
        {
          GLOBAL_API_RATE_LIMIT: '0',
          CRITICAL_RATE_LIMIT: '0',
          GLOBAL_WEB_RATE_LIMIT: '0',
          WEB_DIST_PATH: web.dist,
        },
        async (client) => {
          for (let call = 0; call < 6; call += 1) {
            expect((await client.get('/api/status')).status).toBe(200);
            expect((await wrongLogin(client)).status).toBe(200);
            expect((await client.get('/')).status).toBe(200);
          }
        },
      );
    } finally {
      web.remove();
    }
  });
});

describe('the HTTP surface', () => {
  let test: TestSluice;
  let client: ApiClient;
  const web = makeWebDist();
  beforeAll(async () => {
    test = await startTestSluice('sqlite', { WEB_DIST_PATH: web.dist });
    client = apiClient(test.sluice.app);
  });
  afterAll(async () => {
    await test?.close();
    web.remove();
  });

  it.each([
    ['GET', '/api/xyz'],
    ['POST', '/api/xyz'],
    ['DELETE', '/api/user/nothing/here'],
    ['GET', '/v1/xyz'],
    ['POST', '/v1/xyz'],
    ['POST', '/'],
    ['PUT', '/token'],
  ])('answers %s %s with a 404 in the OpenAI error shape', async (method, path) => {
    const response = await client.request(method, path);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual({
      error: {
        message: `Invalid URL (${method} ${path})`,
        type: 'invalid_request_error',
        param: '',
        code: '',
      },
    });
    expect(response.headers.get(REQUEST_ID_HEADER)).toMatch(/^\d+$/);
  });

  it('answers /api/status with and without the trailing slash', async () => {
    const plain = await client.get('/api/status');
    const slashed = await client.get('/api/status/');
    expect(slashed.status).toBe(200);
    expect(slashed.body.success).toBe(true);
    expect(slashed.body.data).toEqual(plain.body.data);
    expect((await client.get('/api/notice/')).body).toEqual({ success: true, message: '', data: '' });
  });

  it('serves the console index at / and for every unknown page, never cached', async () => {
    for (const path of ['/', '/token', '/user/edit', '/channel/edit/5?tab=models', '/assets']) {
      const response = await client.get(path);
      expect(response.status, path).toBe(200);
      expect(response.text, path).toBe(INDEX_HTML);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(response.headers.get('cache-control'), path).toBe('no-cache');
    }
    // A chunk of an older build is not a page: a 404, not index.html served as JavaScript.
    expect((await client.get('/assets/missing.js')).status).toBe(404);
  });

  it('serves a built file with a week of caching and its content type', async () => {
    const script = await client.get('/assets/app.js');
    expect(script.status).toBe(200);
    expect(script.text).toBe(APP_JS);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('cache-control')).toMatch(/max-age=604800/);
    const style = await client.get('/assets/style.css');
    expect(style.text).toBe('body{margin:0}');
    expect(style.headers.get('content-type')).toMatch(/^text\/css/);
    const index = await client.get('/index.html');
    expect(index.text).toBe(INDEX_HTML);
  });

  it.each([
    '/..%2fsecret.txt',
    '/..%2f..%2fetc/passwd',
    '/..%2f..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc/passwd',
    '/assets/..%2f..%2fsecret.txt',
    '/%2e%2e/secret.txt',
    '/%2e%2e%2fsecret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/..%5csecret.txt',
    '/%252e%252e%252fsecret.txt',
    '/../secret.txt',
    '/assets/../../secret.txt',
  ])('never serves a file outside the console for %s', async (path) => {
    const response = await client.get(path);
    expect(response.text).not.toContain('this-must-never-be-served');
    expect(response.text).not.toMatch(/root:.*:0:0:/);
    expect([200, 400, 404]).toContain(response.status);
    if (response.status === 200) expect(response.text).toBe(INDEX_HTML);
  });

  it('answers Prometheus metrics that count the requests', async () => {
    await client.get('/api/status');
    await client.get(`/api/unknown-${randomBytes(4).toString('hex')}`);
    const response = await client.get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(response.text).toContain('# TYPE sluice_http_requests_total counter');
    expect(response.text).toMatch(
      /^sluice_http_requests_total\{[^}]*surface="api"[^}]*route="\/api\/status"[^}]*status="200"[^}]*\} [1-9]\d*$/m,
    );
    expect(response.text).toMatch(
      /^sluice_http_requests_total\{[^}]*surface="api"[^}]*status="404"[^}]*\} [1-9]/m,
    );
    expect(response.text).toContain('# TYPE sluice_http_request_duration_seconds histogram');
    // Cumulative buckets ending in +Inf, which equals the count.
    const statusLine = (suffix: string, extra = '') =>
      new RegExp(
        `^sluice_http_request_duration_seconds_${suffix}\\{surface="api",method="GET",route="/api/status"${extra}\\} (\\S+)$`,
        'm',
      );
    const bucketAt = (le: string) =>
      Number(statusLine('bucket', `,le="${le.replace(/[.+]/g, '\\$&')}"`).exec(response.text)?.[1]);
    const count = Number(statusLine('count').exec(response.text)?.[1]);
    expect(count).toBeGreaterThanOrEqual(1);
    expect(bucketAt('+Inf')).toBe(count);
    expect(bucketAt('0.001')).toBeLessThanOrEqual(bucketAt('30'));
    expect(Number(statusLine('sum').exec(response.text)?.[1])).toBeGreaterThan(0);
    expect(response.text).toMatch(/^sluice_process_cpu_user_seconds_total /m);
    // Unknown paths do not become label values (no unbounded label cardinality).
    expect(response.text).not.toMatch(/unknown-[0-9a-f]{8}/);
  });

  it('keeps the metrics of two apps apart', async () => {
    const other = await test.boot();
    const before = await apiClient(other.app).get('/metrics');
    expect(before.text).not.toMatch(/^sluice_http_requests_total\{[^}]*route="\/api\/status"/m);
  });

  it('refuses an /api body over 4 MiB with 413 and the envelope', async () => {
    const padding = 'x'.repeat(4 * 1024 * 1024 + 1);
    const response = await client.post('/api/user/login', { username: 'root', password: 'wrong', padding });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ success: false, message: 'the request body is too large' });
    expect(client.cookies.size).toBe(0);
  });

  it('reads an /api body just under 4 MiB', async () => {
    const padding = 'x'.repeat(3 * 1024 * 1024);
    const response = await client.post('/api/user/login', { username: 'root', password: 'wrong', padding });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: false,
      message: 'username or password is wrong, or the user is banned',
    });
  });

  it('answers 503 with a hint when the console is not built', async () => {
    const unbuilt = await test.boot({ WEB_DIST_PATH: web.empty });
    const response = await apiClient(unbuilt.app).get('/');
    expect(response.status).toBe(503);
    expect(response.text).toMatch(/npm run build/);
    expect((await apiClient(unbuilt.app).get('/api/status')).status).toBe(200);
  });
});

describe('master and slave nodes', () => {
  let test: TestSluice;
  const web = makeWebDist();
  beforeAll(async () => {
    // The master migrates the database the slave then uses.
    test = await startTestSluice('sqlite', {
      WEB_DIST_PATH: web.dist,
      FRONTEND_BASE_URL: 'https://console.example.com',
    });
  });
  afterAll(async () => {
    await test?.close();
    web.remove();
  });

  it('redirects unknown web paths of a slave with FRONTEND_BASE_URL to the front end, 301', async () => {
    const slave = await test.boot({ NODE_TYPE: 'slave', FRONTEND_BASE_URL: 'https://console.example.com/' });
    const client = apiClient(slave.app);
    const page = await client.get('/token?p=2');
    expect(page.status).toBe(301);
    expect(page.headers.get('location')).toBe('https://console.example.com/token?p=2');
    const root = await client.get('/');
    expect(root.status).toBe(301);
    expect(root.headers.get('location')).toBe('https://console.example.com/');
    // The API is served by the slave itself.
    const status = await client.get('/api/status');
    expect(status.status).toBe(200);
    expect(status.body.success).toBe(true);
    expect((await client.login('root', '123456')).body.success).toBe(true);
    const unknown = await client.get('/api/xyz');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.message).toBe('Invalid URL (GET /api/xyz)');
  });

  it('ignores FRONTEND_BASE_URL on the master and serves the console', async () => {
    const response = await apiClient(test.sluice.app).get('/token');
    expect(response.status).toBe(200);
    expect(response.text).toBe(INDEX_HTML);
  });

  it('serves the console on a slave without FRONTEND_BASE_URL', async () => {
    const slave = await test.boot({ NODE_TYPE: 'slave', FRONTEND_BASE_URL: '' });
    const response = await apiClient(slave.app).get('/token');
    expect(response.status).toBe(200);
    expect(response.text).toBe(INDEX_HTML);
  });

  it('never migrates as a slave: it waits for a master to, then serves (logins included)', async () => {
    const database = await createTestDatabase('sqlite');
    const started: Sluice[] = [];
    try {
      let ready = false;
      const slave = bootWith(database, { NODE_TYPE: 'slave' }).then((booted) => {
        ready = true;
        started.push(booted);
        return booted;
      });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(ready).toBe(false);
      const file = new SqliteDriver(database.location);
      try {
        const tables = file.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
          name: string;
        }[];
        expect(tables.map((table) => table.name)).not.toContain('users');
        expect(tables.map((table) => table.name)).not.toContain('sluice_sessions');
      } finally {
        file.close();
      }
      started.push(await bootWith(database, { NODE_TYPE: 'master' }));
      const served = await slave;
      expect((await apiClient(served.app).login('root', '123456')).body.success).toBe(true);
    } finally {
      for (const instance of started.reverse()) await instance.close();
      await database.drop();
    }
  });
});
