import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The built server, as `npm start` runs it (`npm test` builds before it tests). */
export const BUILT_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export const freePort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
};

export interface BuiltServer {
  readonly port: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
}

export interface BuiltServerOptions {
  /** The working directory (relative paths such as one-api's ./one-api.db are read from it). */
  readonly cwd?: string;
  /** Variables removed from the environment the server starts with (not merely empty). */
  readonly unset?: readonly string[];
}

/** Starts the built server as a child process with `env` and resolves once it listens. */
export const startBuiltServer = async (
  env: Record<string, string>,
  options: BuiltServerOptions = {},
): Promise<BuiltServer> => {
  if (!existsSync(BUILT_MAIN)) throw new Error(`${BUILT_MAIN} is missing: npm run build`);
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_CONN_STRING: '',
    SESSION_SECRET: 'test-session-secret',
    GLOBAL_API_RATE_LIMIT: '100000',
    CRITICAL_RATE_LIMIT: '100000',
    ...env,
    PORT: String(port),
  };
  for (const name of options.unset ?? []) delete childEnv[name];
  const child = spawn(process.execPath, [BUILT_MAIN], {
    env: childEnv,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  await new Promise<void>((done, fail) => {
    const check = setInterval(() => {
      if (!out.includes('Sluice listening')) return;
      clearInterval(check);
      done();
    }, 20);
    void exited.then((code) => {
      clearInterval(check);
      fail(new Error(`Sluice exited with ${code} before listening: ${out}`));
    });
  });
  return { port, child, exited, output: () => out };
};
