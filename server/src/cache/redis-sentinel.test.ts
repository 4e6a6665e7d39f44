import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../config/env.js';
import { freePort } from '../test-support/built-server.js';
import { testRedisUrl } from '../test-support/test-databases.js';
import { startTestSluice } from '../test-support/test-sluice.js';
import { createRedisCache } from './redis-cache.js';

const redisUrl = testRedisUrl();
const MASTER = 'sluice-test-master';

/** Resolves once something answers on 127.0.0.1:port. */
const listening = async (port: number, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

/** one-api's REDIS_MASTER_NAME: Redis reached through a real Sentinel (redis-server --sentinel). */
describe.skipIf(!redisUrl)('Redis through Sentinel (REDIS_MASTER_NAME)', () => {
  let sentinel: ChildProcess | undefined;
  let dir: string;
  let port: number;

  beforeAll(async () => {
    const master = new URL(redisUrl ?? 'redis://127.0.0.1:6379');
    dir = mkdtempSync(join(tmpdir(), 'sluice-sentinel-'));
    port = await freePort();
    const file = join(dir, 'sentinel.conf');
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${MASTER} ${master.hostname} ${master.port || '6379'} 1`,
        `sentinel down-after-milliseconds ${MASTER} 60000`,
        '',
      ].join('\n'),
    );
    sentinel = spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' });
    await listening(port);
  });
  afterAll(() => {
    if (sentinel?.pid !== undefined) sentinel.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the sentinels from REDIS_CONN_STRING when REDIS_MASTER_NAME is set, as one-api', () => {
    const config = readConfig(
      { REDIS_CONN_STRING: `127.0.0.1:${port},127.0.0.1:1`, REDIS_MASTER_NAME: MASTER, REDIS_PASSWORD: 'pw' },
      () => 'secret',
      () => false,
    );
    expect(config.redisMasterName).toBe(MASTER);
    expect(config.redisPassword).toBe('pw');
    expect(() =>
      readConfig(
        { REDIS_CONN_STRING: '127.0.0.1:6379' },
        () => 'secret',
        () => false,
      ),
    ).toThrow(/REDIS_MASTER_NAME/);
    expect(() =>
      readConfig(
        { REDIS_CONN_STRING: 'redis://x:6379', REDIS_MASTER_NAME: MASTER },
        () => 'secret',
        () => false,
      ),
    ).toThrow(/sentinels/);
  });

  it('finds the master through the sentinel: commands and broadcasts work', async () => {
    const first = await createRedisCache({
      sentinels: [{ host: '127.0.0.1', port }],
      masterName: MASTER,
      password: '',
    });
    const second = await createRedisCache({
      sentinels: [{ host: '127.0.0.1', port }],
      masterName: MASTER,
      password: '',
    });
    try {
      const heard: string[] = [];
      await second.subscribe('sentinel-test', (message) => heard.push(message));
      await first.publish('sentinel-test', 'hello');
      const deadline = Date.now() + 3000;
      while (heard.length === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 25));
      expect(heard).toEqual(['hello']);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('boots Sluice with REDIS_MASTER_NAME', async () => {
    const test = await startTestSluice('sqlite', {
      REDIS_CONN_STRING: `127.0.0.1:${port}`,
      REDIS_MASTER_NAME: MASTER,
    });
    try {
      expect((await test.sluice.app.request('/api/status')).status).toBe(200);
    } finally {
      await test.close();
    }
  });
});
