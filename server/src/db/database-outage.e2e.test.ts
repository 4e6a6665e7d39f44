import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../boot.js';
import { apiClient } from '../test-support/api-client.js';
import { listenSluice, type Listening } from '../test-support/listen.js';
import { startTcpProxy, type TcpProxy } from '../test-support/tcp-proxy.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../test-support/test-databases.js';
import { bootWith } from '../test-support/test-sluice.js';
import { randomUUID } from 'node:crypto';
import { memoryJournal } from '../relay/metering/billing-journal.js';
import { createSettlementBatcher } from '../relay/metering/settlement-batch.js';
import { isDatabaseUnavailable } from './database-unavailable.js';
import type { Tables } from './tables.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The same DSN, through the proxy: `host:port` of the server replaced by the proxy's. */
const throughProxy = (database: TestDatabase, port: number): string =>
  database.dialect === 'postgres'
    ? database.location.replace(/@[^/]+\//, `@127.0.0.1:${port}/`)
    : database.location.replace(/tcp\([^)]*\)/, `tcp(127.0.0.1:${port})`);

const serverPort = (database: TestDatabase): number =>
  database.dialect === 'postgres'
    ? Number(new URL(database.location).port || 5432)
    : Number(/tcp\([^:]*:(\d+)\)/.exec(database.location)?.[1] ?? 3306);

/** Retries `check` until it holds (the pool reconnecting by itself), at most `ms`. */
const eventually = async (check: () => Promise<boolean>, ms = 10_000): Promise<boolean> => {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await sleep(100);
  }
  return false;
};

// SQLite has no connection to lose: its outage is a locked file, answered the same way (a 503).
const servers = testDialects().filter((dialect) => dialect !== 'sqlite');

describe.runIf(servers.length > 0).each(servers)('a lost database connection on %s', (dialect) => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let sluice: Sluice;
  let server: Listening;
  const db = (): Kysely<Tables> => sluice.database.db;
  const client = () => apiClient(sluice.app);
  const login = () => client().post('/api/user/login', { username: 'root', password: '123456' });
  const relay = () =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk-not-a-known-key-000000000000000000000000',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    });

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    proxy = await startTcpProxy('127.0.0.1', serverPort(database));
    sluice = await bootWith(database, { SQL_DSN: throughProxy(database, proxy.port) });
    server = await listenSluice(sluice);
  });
  afterAll(async () => {
    await server?.close();
    await sluice?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('keeps the process up when a connection breaks while a transaction holds it', async () => {
    let resume: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      resume = resolve;
    });
    const transaction = db()
      .transaction()
      .execute(async (trx) => {
        await trx.selectFrom('users').select('id').execute();
        await held;
        await trx.selectFrom('users').select('id').execute();
      });
    const failed = transaction.then(
      () => undefined,
      (error: unknown) => error,
    );
    await sleep(100);
    // The checked-out connection breaks while idle: node-postgres and mysql2 emit 'error' on it,
    // which without a listener is an uncaught exception (vitest fails the run on one).
    proxy.drop();
    let error: unknown;
    try {
      await sleep(200);
      resume();
      error = await failed;
    } finally {
      proxy.restore();
    }
    expect(error).toBeDefined();
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(
      await eventually(async () => (await db().selectFrom('users').select('id').execute()).length > 0),
    ).toBe(true);
  });

  it('answers 503 in each surface’s shape while the database is away, and recovers by itself', async () => {
    expect((await login()).body.success).toBe(true);
    proxy.drop();
    try {
      // The console's status is kept in memory: it still answers.
      expect((await client().get('/api/status')).status).toBe(200);
      const refused = await login();
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ success: false, message: 'the database is unavailable; retry shortly' });
      const relayed = await relay();
      expect(relayed.status).toBe(503);
      const body = (await relayed.json()) as { error: { code: string; type: string; message: string } };
      expect(body.error.code).toBe('database_unavailable');
      expect(body.error.message).toMatch(/^the database is unavailable; retry shortly \(request id: /);
    } finally {
      proxy.restore();
    }
    expect(await eventually(async () => (await login()).body.success === true)).toBe(true);
    // The relay reads the database again too: an unknown key is a 401 again, not a 503.
    expect(await eventually(async () => (await relay()).status === 401)).toBe(true);
  });

  it('bills a request answered while the database is away once it is back: late, once, never dropped', async () => {
    const root = await db()
      .selectFrom('users')
      .select(['id', 'quota', 'used_quota'])
      .where('username', '=', 'root')
      .executeTakeFirstOrThrow();
    const settle = createSettlementBatcher({
      db: db(),
      logDb: db(),
      dialect,
      journal: memoryJournal(randomUUID()),
      windowMs: 5,
      committed: () => undefined,
    });
    proxy.drop();
    let settled: Promise<void>;
    try {
      settled = settle({
        payer: { userId: root.id, tokenId: 0, unlimited: true },
        username: 'root',
        tokenName: '',
        channelId: 0,
        preQuota: 0,
        quota: 40,
        log: {
          model: 'gpt-4o',
          promptTokens: 10,
          completionTokens: 5,
          content: 'model ratio 1.00',
          requestId: 'answered-in-the-outage',
          elapsedMs: 3,
          stream: false,
          systemPromptReset: false,
        },
      });
      // Several tries fail while it is away; the settlement waits in the bounded backlog.
      await sleep(700);
      expect(settle.backlog()).toBe(1);
    } finally {
      proxy.restore();
    }
    await settled;
    expect(settle.backlog()).toBe(0);
    const rows = await db()
      .selectFrom('logs')
      .select(['quota'])
      .where('request_id', '=', 'answered-in-the-outage')
      .execute();
    expect(rows.map((row) => Number(row.quota))).toEqual([40]);
    const after = await db()
      .selectFrom('users')
      .select(['quota', 'used_quota'])
      .where('id', '=', root.id)
      .executeTakeFirstOrThrow();
    expect(Number(after.quota)).toBe(Number(root.quota) - 40);
    expect(Number(after.used_quota)).toBe(Number(root.used_quota) + 40);
  });
});
