import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBuiltServer, type BuiltServer } from '../test-support/built-server.js';
import { runOn } from '../test-support/fixture-connection.js';
import { oneApiGormDdl } from '../test-support/one-api-gorm-ddl.js';
import {
  ALICE_KEY_1,
  ALICE_PASSWORD,
  ROOT_PASSWORD,
  writeOneApiDatabase,
} from '../test-support/one-api-rows.js';
import { startOpenAiDouble, type OpenAiDouble } from '../test-support/openai-double.js';
import { autoMigrateChanges, readOneApiSchema } from '../test-support/schema-shape.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../test-support/test-databases.js';
import type { Dialect } from './dsn.js';

/** STATUS_CHECK_FREQUENCY's default: a status changed in the database takes effect within it. */
const STATUS_CHECK_MS = 5_000;
/** A poll's own time, a loaded machine's scheduling. */
const SLACK_MS = 2_500;

/** one-api's database where one-api keeps it: ./one-api.db of the working directory (SQLite), or SQL_DSN's. */
const oneApiDatabase = async (dialect: Dialect, workDir: string): Promise<TestDatabase> =>
  dialect === 'sqlite'
    ? { dialect, env: {}, location: join(workDir, 'one-api.db'), drop: () => Promise.resolve() }
    : createTestDatabase(dialect);

/** The environment one-api's docker-compose gives it (SQL_DSN in one-api's own format). */
const oneApiEnv = (database: TestDatabase): Record<string, string> => ({
  SESSION_SECRET: 'random_string',
  ...(database.dialect === 'sqlite' ? {} : { SQL_DSN: database.location }),
  TZ: 'Asia/Shanghai',
  SYNC_FREQUENCY: '60',
  MEMORY_CACHE_ENABLED: 'true',
});

describe.each(testDialects())('Sluice started in place of one-api v0.6.9, with its env (%s)', (dialect) => {
  let workDir: string;
  let database: TestDatabase;
  let double: OpenAiDouble;
  let server: BuiltServer;

  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const chat = (key: string) =>
    post(
      '/v1/chat/completions',
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello' }] },
      { authorization: `Bearer sk-${key}` },
    );

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'one-api-workdir-'));
    database = await oneApiDatabase(dialect, workDir);
    await writeOneApiDatabase(database);
    double = await startOpenAiDouble();
    await runOn(database, [`UPDATE \`channels\` SET \`base_url\` = '${double.url}' WHERE \`id\` = 1`]);
    // Not set at all, as in one-api's env (this machine's own would otherwise win).
    const unset = [
      'SQLITE_PATH',
      'LOG_SQL_DSN',
      'BILLING_JOURNAL_DIR',
      ...(dialect === 'sqlite' ? ['SQL_DSN'] : []),
    ];
    server = await startBuiltServer(oneApiEnv(database), { cwd: workDir, unset });
  });

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await double?.close();
    await database?.drop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('starts on the database one-api left, saying what it made of its env', () => {
    expect(server.output()).toContain('SESSION_SECRET is one-api');
    if (dialect === 'sqlite') expect(server.output()).toContain("one-api's database ./one-api.db");
  });

  it("logs the old root and user in with one-api's bcrypt hashes", async () => {
    const root = await post('/api/user/login', { username: 'root', password: ROOT_PASSWORD });
    expect(await root.json()).toMatchObject({ success: true, data: { id: 1, username: 'root', role: 100 } });
    const alice = await post('/api/user/login', { username: 'alice', password: ALICE_PASSWORD });
    expect(await alice.json()).toMatchObject({ success: true, data: { id: 2, username: 'alice' } });
    const wrong = await post('/api/user/login', { username: 'root', password: '123456' });
    expect(await wrong.json()).toMatchObject({ success: false });
  });

  it("relays the old key to the old channel with the channel's key", async () => {
    const response = await chat(ALICE_KEY_1);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]!.message.content).toBe(double.reply);
    expect(double.requests.at(-1)?.headers.authorization).toBe('Bearer sk-upstream');
  });

  it('refuses the key within STATUS_CHECK_FREQUENCY of a direct UPDATE tokens SET status = 2', async () => {
    expect((await chat(ALICE_KEY_1)).status).toBe(200);
    await runOn(database, [`UPDATE \`tokens\` SET \`status\` = 2 WHERE \`key\` = '${ALICE_KEY_1}'`]);
    const started = Date.now();
    let refused: Response | undefined;
    while (!refused && Date.now() - started < STATUS_CHECK_MS + SLACK_MS) {
      const response = await chat(ALICE_KEY_1);
      if (response.status === 200) await response.arrayBuffer();
      else refused = response;
      if (!refused) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const elapsed = Date.now() - started;
    expect(refused?.status, `still relayed after ${elapsed} ms`).toBe(401);
    expect(await refused!.json()).toMatchObject({ error: { message: expect.any(String) as string } });
    expect(elapsed).toBeLessThanOrEqual(STATUS_CHECK_MS + SLACK_MS);
  });

  it("leaves a schema one-api's models accept", async () => {
    const gorm = await createTestDatabase(dialect);
    try {
      await runOn(gorm, oneApiGormDdl(dialect, true));
      const expected = await readOneApiSchema(gorm);
      expect(autoMigrateChanges(expected, await readOneApiSchema(database), dialect)).toEqual([]);
    } finally {
      await gorm.drop();
    }
  });
});
