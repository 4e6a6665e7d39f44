import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './database.js';
import { migrate } from './migrations/migrations.js';
import { isDatabaseUnavailable } from './database-unavailable.js';
import { createSqliteThread } from './sqlite-thread.js';

const logRow = (createdAt: number) => ({
  user_id: 1,
  created_at: createdAt,
  type: LOG_TYPE.consume,
  content: 'c',
  username: 'u',
  token_name: 't',
  model_name: 'm',
  quota: 5,
  prompt_tokens: 1,
  completion_tokens: 2,
  channel_id: 1,
  request_id: 'r',
  elapsed_time: 3,
  is_stream: true,
  system_prompt_reset: false,
});

/** A migrated SQLite file database of its own, in a new directory. */
const freshFile = async (): Promise<{ dir: string; file: string; database: Database }> => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-threads-'));
  const file = join(dir, 'sluice.db');
  const database = await openDatabase({
    dsn: '',
    sqlitePath: file,
    sqliteBusyTimeoutMs: 1000,
    maxConnections: 1,
  });
  await migrate(database.db, 'sqlite', 'main');
  return { dir, file, database };
};

describe('SQLite thread databases (a real file)', () => {
  let dir: string;
  let database: Database;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-threads-'));
    database = await openDatabase({
      dsn: '',
      sqlitePath: join(dir, 'sluice.db'),
      sqliteBusyTimeoutMs: 3000,
      maxConnections: 1,
    });
    await migrate(database.db, 'sqlite', 'main');
  });

  afterAll(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are other Kysely instances than the main one', () => {
    expect(database.readDb).not.toBe(database.db);
    expect(database.maintenanceDb).not.toBe(database.db);
  });

  it('reads what the main connection committed, with the same types', async () => {
    await database.db
      .insertInto('logs')
      .values([logRow(100), logRow(200)])
      .execute();
    const rows = await database.readDb
      .selectFrom('logs')
      .select(['created_at', 'is_stream', 'content'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { created_at: 100, is_stream: 1, content: 'c' },
      { created_at: 200, is_stream: 1, content: 'c' },
    ]);
    const stat = await database.readDb
      .selectFrom('logs')
      .select(sql<number>`SUM(quota)`.as('quota'))
      .where('is_stream', '=', true)
      .executeTakeFirstOrThrow();
    expect(stat.quota).toBe(10);
  });

  it('answers many statements in flight, each with its own result', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        sql<{ n: number }>`SELECT ${index} AS n`.execute(database.readDb).then((result) => result.rows[0]?.n),
      ),
    );
    expect(answers).toEqual(Array.from({ length: 50 }, (_, index) => index));
  });

  it('refuses writes on the read connection, with SQLite’s error code', async () => {
    const failure = await database.readDb
      .deleteFrom('logs')
      .execute()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as { code?: string }).code).toBe('SQLITE_READONLY');
    expect(isDatabaseUnavailable(failure)).toBe(false);
  });

  it('passes on a statement’s error and keeps serving', async () => {
    await expect(sql`SELECT * FROM no_such_table`.execute(database.readDb)).rejects.toThrow(/no such table/);
    const row = await database.readDb.selectFrom('logs').select('id').limit(1).executeTakeFirst();
    expect(row).toBeDefined();
  });

  it('writes on the maintenance connection, counted as Kysely counts them', async () => {
    await database.db
      .insertInto('logs')
      .values([logRow(300), logRow(400)])
      .execute();
    const result = await database.maintenanceDb
      .deleteFrom('logs')
      .where('created_at', '<', 250)
      .executeTakeFirst();
    expect(result.numDeletedRows).toBe(2n);
    const left = await database.db.selectFrom('logs').select('created_at').orderBy('id').execute();
    expect(left.map((row) => row.created_at)).toEqual([300, 400]);
  });

  it('runs a maintenance statement only while the main connection is free', async () => {
    const order: string[] = [];
    let release = () => undefined as void;
    const held = database.db.connection().execute(async () => {
      order.push('main holds');
      await new Promise<void>((done) => {
        release = done;
      });
      order.push('main releases');
    });
    const deleted = database.maintenanceDb
      .deleteFrom('logs')
      .where('created_at', '<', 0)
      .execute()
      .then(() => order.push('maintenance ran'));
    await new Promise((done) => setTimeout(done, 50));
    expect(order).toEqual(['main holds']);
    release();
    await Promise.all([held, deleted]);
    expect(order).toEqual(['main holds', 'main releases', 'maintenance ran']);
  });

  it('leaves the event loop free while a long read runs', async () => {
    let turns = 0;
    let reading = true;
    const spin = async () => {
      while (reading) {
        await new Promise((done) => setImmediate(done));
        turns += 1;
      }
    };
    const spinning = spin();
    // A few hundred ms of SQLite work: on the calling thread no turn of the loop could run meanwhile.
    const result = await sql<{ total: number }>`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000000)
      SELECT SUM(i) AS total FROM n`.execute(database.readDb);
    reading = false;
    await spinning;
    expect(result.rows[0]?.total).toBe((2_000_000 * 2_000_001) / 2);
    expect(turns).toBeGreaterThan(20);
  });

  it('refuses transactions on the read thread', async () => {
    await expect(database.readDb.transaction().execute(() => Promise.resolve())).rejects.toThrow(
      /single statements/,
    );
  });

  it('runs a transaction on the maintenance thread, the main connection held from BEGIN to COMMIT', async () => {
    const seen: string[] = [];
    let finish = () => undefined as void;
    const finishing = new Promise<void>((done) => (finish = done));
    const transaction = database.maintenanceDb.transaction().execute(async (trx) => {
      await trx.insertInto('logs').values(logRow(500)).execute();
      seen.push('first row');
      await finishing;
      await trx.insertInto('logs').values(logRow(501)).execute();
    });
    while (!seen.includes('first row')) await new Promise((done) => setTimeout(done, 5));
    const mainRead = database.db
      .selectFrom('logs')
      .select('id')
      .where('created_at', 'in', [500, 501])
      .execute()
      .then((rows) => seen.push(`main read ${rows.length}`));
    await new Promise((done) => setTimeout(done, 100));
    expect(seen).toEqual(['first row']);
    finish();
    await transaction;
    await mainRead;
    expect(seen).toEqual(['first row', 'main read 2']);
  });

  it('never checkpoints inside a maintenance commit (the main connection held): after it, as a rule', async () => {
    const setting = async (db: typeof database.db) =>
      (await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(db)).rows[0]
        ?.wal_autocheckpoint;
    expect(await setting(database.maintenanceDb)).toBe(0);
    expect(await setting(database.db)).toBe(10_000);
    // A transaction of more than SQLite's 1000 pages: the WAL is copied back after it, not in it.
    const filler = 'x'.repeat(3000);
    await database.maintenanceDb.transaction().execute(async (trx) => {
      for (let index = 0; index < 2000; index += 100)
        await trx
          .insertInto('logs')
          .values(
            Array.from({ length: 100 }, (_, row) => ({ ...logRow(700 + index + row), content: filler })),
          )
          .execute();
    });
    const [checkpoint] = (
      await sql<{ busy: number; log: number; checkpointed: number }>`PRAGMA wal_checkpoint(PASSIVE)`.execute(
        database.maintenanceDb,
      )
    ).rows;
    expect(checkpoint?.log).toBeGreaterThan(1000);
    expect(checkpoint?.checkpointed).toBe(checkpoint?.log);
    await database.db
      .deleteFrom('logs')
      .where('created_at', '>=', 700)
      .where('created_at', '<', 2700)
      .execute();
  });

  it('rolls a failed maintenance transaction back and gives the main connection back', async () => {
    await expect(
      database.maintenanceDb.transaction().execute(async (trx) => {
        await trx.insertInto('logs').values(logRow(600)).execute();
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const rows = await database.db.selectFrom('logs').select('id').where('created_at', '=', 600).execute();
    expect(rows).toEqual([]);
  });
});

describe('an SQLite thread that cannot open its file', () => {
  it('fails each statement with the error instead of hanging, and closes', async () => {
    const thread = createSqliteThread({
      file: join(tmpdir(), 'sluice-none', 'x.db'),
      readonly: true,
      busyTimeoutMs: 100,
    });
    await expect(thread.execute('SELECT 1', [])).rejects.toThrow();
    await expect(thread.execute('SELECT 1', [])).rejects.toThrow();
    await thread.close();
    await expect(thread.execute('SELECT 1', [])).rejects.toThrow(/closed/);
  });
});

describe('an SQLite thread with an idle limit', () => {
  it('ends once idle, stays while statements come closer than the limit, and starts anew for the next', async () => {
    const { dir, file, database } = await freshFile();
    await database.db.insertInto('logs').values(logRow(1)).execute();
    const thread = createSqliteThread({ file, readonly: true, busyTimeoutMs: 1000, idleMs: 150 });
    const count = async () => (await thread.execute('SELECT count(*) AS n FROM logs', [])).rows;
    try {
      expect(thread.started()).toBe(false);
      expect(await count()).toEqual([{ n: 1 }]);
      expect(thread.started()).toBe(true);
      // Statements closer together than the limit keep it.
      for (let step = 0; step < 4; step += 1) {
        await new Promise((done) => setTimeout(done, 60));
        await count();
        expect(thread.started()).toBe(true);
      }
      await expect.poll(() => thread.started(), { timeout: 2000 }).toBe(false);
      // The next statement starts it again and sees what was written meanwhile.
      await database.db.insertInto('logs').values(logRow(2)).execute();
      const [first, second] = await Promise.all([count(), count()]);
      expect([first, second]).toEqual([[{ n: 2 }], [{ n: 2 }]]);
      expect(thread.started()).toBe(true);
    } finally {
      await thread.close();
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('closing an SQLite file database', () => {
  it('ends the threads that only the checkpoints started: the file is closed, its WAL gone', async () => {
    const { dir, file, database } = await freshFile();
    // Past one checkpoint tick: the maintenance thread runs, though nothing used maintenanceDb.
    await new Promise((done) => setTimeout(done, 1300));
    await database.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(readdirSync(dir)).toEqual(['sluice.db']);
    rmSync(dir, { recursive: true });
  });
});

describe('a memory database', () => {
  it('has no threads: its reads are the main Kysely', async () => {
    const database = await openDatabase({
      dsn: '',
      sqlitePath: ':memory:',
      sqliteBusyTimeoutMs: 1000,
      maxConnections: 1,
    });
    expect(database.readDb).toBe(database.db);
    expect(database.maintenanceDb).toBe(database.db);
    await database.close();
  });
});
