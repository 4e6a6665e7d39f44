import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../test-support/test-databases.js';
import { openDatabase, type Database } from './database.js';

describe.skipIf(!process.env['TEST_PG_DSN'])('Sluice’s PostgreSQL connections', () => {
  let database: TestDatabase;
  let opened: Database;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    opened = await openDatabase({
      dsn: database.location,
      sqlitePath: '',
      sqliteBusyTimeoutMs: 1000,
      maxConnections: 3,
    });
  });

  afterAll(async () => {
    await opened?.close();
    await database?.drop();
  });

  it('run with JIT compilation off, on every connection of the pool', async () => {
    const settings = await Promise.all(
      [1, 2, 3].map(() =>
        opened.db.transaction().execute(async (trx) => {
          const { rows } = await sql<{ jit: string }>`SHOW jit`.execute(trx);
          return rows[0]?.jit;
        }),
      ),
    );
    expect(settings).toEqual(['off', 'off', 'off']);
  });
});
