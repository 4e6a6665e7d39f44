import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_MAIN } from './test-support/built-server.js';

describe('a port already in use', () => {
  let taken: Server;
  let port: number;
  const dir = mkdtempSync(join(tmpdir(), 'sluice-port-'));

  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((done) => taken.listen(0, () => done()));
    port = (taken.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((done) => taken.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  it('is said plainly, and Sluice exits 1 without a stack trace', async () => {
    const child = spawn(process.execPath, [BUILT_MAIN], {
      env: {
        ...process.env,
        PORT: String(port),
        SQL_DSN: '',
        SQLITE_PATH: join(dir, 'sluice.db'),
        REDIS_CONN_STRING: '',
        SESSION_SECRET: 'test-session-secret',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(1);
    expect(stderr).toContain(`sluice: failed to start: port ${port} is already in use`);
    expect(stderr).not.toContain('Unhandled');
  });
});
