import type { ChildProcess } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltServer } from './test-support/built-server.js';
import { startOpenAiDouble, type OpenAiDouble } from './test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from './test-support/relay-fixture.js';
import { consumeLogs } from './test-support/relay-helpers.js';

/** A streamed chat on its own keep-alive connection: the status, then the whole body as it ends. */
const streamChat = (port: number, key: string) =>
  new Promise<{ response: IncomingMessage; body: Promise<string>; socketEnd: Promise<'end' | 'reset'> }>(
    (resolve, reject) => {
      const call = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/chat/completions',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            connection: 'keep-alive',
          },
        },
        (response) => {
          const socket = response.socket;
          const socketEnd = new Promise<'end' | 'reset'>((done) => {
            socket.once('error', () => done('reset'));
            socket.once('close', (hadError) => done(hadError ? 'reset' : 'end'));
          });
          const body = new Promise<string>((done, fail) => {
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              text += chunk;
            });
            response.on('end', () => done(text));
            response.on('error', fail);
          });
          resolve({ response, body, socketEnd });
        },
      );
      call.on('error', reject);
      call.end(
        JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
      );
    },
  );

describe('SIGTERM', () => {
  let fixture: RelayFixture;
  let double: OpenAiDouble;
  let user: RelayUser;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    double = await startOpenAiDouble();
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({ base_url: double.url, models: 'gpt-4o' });
    user = await fixture.user({ quota: 100_000_000 });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await fixture?.close();
    await double?.close();
  });

  it('drains the streams in flight to their end (past 10 s), closes connections cleanly, bills them all, and exits 0', async () => {
    const server = await startBuiltServer({ SQL_DSN: '', SQLITE_PATH: fixture.test.database.location });
    child = server.child;
    const { port, exited } = server;

    // Four streams, each held by the upstream after its first chunk.
    let release: () => void = () => undefined;
    double.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const streams = await Promise.all([1, 2, 3, 4].map(() => streamChat(port, user.key)));
    for (const { response } of streams) expect(response.statusCode).toBe(200);

    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // No new connection is taken once it is shutting down…
    await expect(fetch(`http://127.0.0.1:${port}/api/status`)).rejects.toThrow();
    // …but the streams in flight go on to their end, even when they last longer than ten seconds.
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    release();
    for (const { body } of streams) expect(await body).toMatch(/data: \[DONE\]\n\n$/);
    for (const { socketEnd } of streams) expect(await socketEnd).toBe('end');
    expect(await exited).toBe(0);
    const logs = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    expect(logs).toHaveLength(4);
    expect(logs.every((row) => row.quota > 0 && row.is_stream)).toBe(true);
  });
});
