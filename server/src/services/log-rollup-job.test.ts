import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.js';
import { withRollups } from '../db/log-rollup-tables.js';
import { migrate } from '../db/migrations/migrations.js';
import { sqlNumber } from '../db/sql-number.js';
import { nowSeconds } from '../lib/time.js';
import { insertLogs, type LogFixture } from '../test-support/log-fixtures.js';
import { expectRollupsMatchLogs } from '../test-support/log-traffic.js';
import { createTestDatabase, testDialects } from '../test-support/test-databases.js';
import { startTestSluice, type TestSluice } from '../test-support/test-sluice.js';
import { BACKFILL_PAGE_CACHE_KIB, createRollupJob, type RollupJobOptions } from './log-rollup-job.js';
import { readWatermark } from './log-rollup-writes.js';

const consumed = (createdAt: number, quota: number): LogFixture => ({
  user_id: 1,
  username: 'root',
  created_at: createdAt,
  type: LOG_TYPE.consume,
  token_name: 'default',
  model_name: 'gpt-4o',
  quota,
  prompt_tokens: quota,
  completion_tokens: 1,
});

describe.each(testDialects())('the roll-up job and gaps in the ids on %s', (dialect) => {
  let test: TestSluice;
  const logDb = () => test.sluice.services.deps.logDb;
  let clock = 0;
  const jobWith = (options: Partial<RollupJobOptions>) => {
    const deps = test.sluice.services.deps;
    return createRollupJob(
      { readDb: deps.logReadDb, writeDb: deps.logMaintenanceDb, dialect },
      { restRatio: 0, nowMs: () => clock, ...options },
    );
  };
  const ids = async () =>
    (await logDb().selectFrom('logs').select('id').orderBy('id').execute()).map((row) => sqlNumber(row.id));
  /** Where a caught-up job leaves the watermark: the newest id (MySQL: the one before, see the job). */
  const caughtUp = async () => {
    const all = await ids();
    return all[all.length - (dialect === 'mysql' ? 2 : 1)] ?? 0;
  };

  beforeAll(async () => {
    test = await startTestSluice(dialect);
  }, 60_000);
  afterAll(() => test?.close());

  beforeEach(async () => {
    // A database of its own per test: the watermark and the cubes start from nothing.
    const db = withRollups(logDb());
    await db.deleteFrom('logs').execute();
    for (const table of [
      'sluice_log_by_model',
      'sluice_log_by_channel',
      'sluice_log_by_user',
      'sluice_log_by_token',
    ] as const)
      await db.deleteFrom(table).execute();
    await db.deleteFrom('sluice_log_hours').execute();
    await db.updateTable('sluice_log_rollup_state').set({ last_id: 0 }).execute();
    // Two first rows folded in (on MySQL the newest waits): the ids the earlier tests used are below
    // the watermark, not a gap.
    await insertLogs(logDb(), [consumed(nowSeconds() - 60, 7), consumed(nowSeconds() - 60, 7)]);
    await jobWith({ gapWaitMs: 0 }).catchUp();
    clock = 0;
  });

  it('stops below a recent gap until it has seen it long enough, then passes it', async () => {
    const now = nowSeconds();
    await insertLogs(
      logDb(),
      [1, 2, 3, 4, 5].map((index) => consumed(now - 10, index)),
    );
    const [, , first, second] = await ids();
    await logDb().deleteFrom('logs').where('id', '=', second!).execute();
    const job = jobWith({ gapWaitMs: 1000 });
    await job.catchUp();
    expect(await readWatermark(logDb())).toBe(first);
    clock = 999;
    await job.catchUp();
    expect(await readWatermark(logDb())).toBe(first);
    clock = 1000;
    await job.catchUp();
    expect(await readWatermark(logDb())).toBe(await caughtUp());
    await expectRollupsMatchLogs(logDb());
  });

  it('passes at once a gap whose next row is old (a one-api database’s deleted rows)', async () => {
    const old = nowSeconds() - 3600;
    await insertLogs(
      logDb(),
      [1, 2, 3, 4, 5, 6].map((index) => consumed(old + index, index)),
    );
    const all = await ids();
    await logDb().deleteFrom('logs').where('id', 'in', [all[3]!, all[5]!, all[6]!]).execute();
    await jobWith({ gapWaitMs: 3_600_000 }).catchUp();
    expect(await readWatermark(logDb())).toBe(await caughtUp());
    await expectRollupsMatchLogs(logDb());
  });

  it.runIf(dialect !== 'sqlite')(
    'holds the watermark below a row whose transaction is still open, and folds it in once committed',
    async () => {
      const now = nowSeconds();
      await insertLogs(logDb(), [consumed(now - 5, 1)]);
      let commit = () => undefined as void;
      const committing = new Promise<void>((done) => (commit = done));
      let inserted = () => undefined as void;
      const insertedOpen = new Promise<void>((done) => (inserted = done));
      const open = logDb()
        .transaction()
        .execute(async (trx) => {
          await insertLogs(trx, [consumed(now - 4, 1000)]);
          inserted();
          await committing;
        });
      let running: Promise<number> | undefined;
      try {
        await insertedOpen;
        await insertLogs(logDb(), [consumed(now - 3, 3), consumed(now - 2, 4), consumed(now - 1, 5)]);
        // On MySQL the chunk's read waits for the open row's lock (the row after it): the run is let
        // go on, and the watermark looked at meanwhile.
        running = jobWith({ gapWaitMs: 60_000 }).catchUp();
        await Promise.race([running, new Promise((done) => setTimeout(done, 300))]);
        const [, , first] = await ids();
        expect(await readWatermark(logDb())).toBeLessThanOrEqual(first!);
      } finally {
        commit();
        await open;
        await running;
      }
      await jobWith({ gapWaitMs: 60_000 }).catchUp();
      expect(await readWatermark(logDb())).toBe(await caughtUp());
      await expectRollupsMatchLogs(logDb());
      const quota = await withRollups(logDb())
        .selectFrom('sluice_log_by_model')
        .select((eb) => eb.fn.sum('quota').as('quota'))
        .where('span', '=', 86_400)
        .executeTakeFirstOrThrow();
      // Every row but (on MySQL) the newest, the open transaction's 1000 among them.
      expect(sqlNumber(quota.quota)).toBe(7 + 7 + 1 + 1000 + 3 + 4 + (dialect === 'mysql' ? 0 : 5));
    },
  );
});

describe('the roll-up job’s page cache on SQLite', () => {
  it('borrows a wider page cache for a catch-up of more than a chunk and gives it back at the end', async () => {
    const test = await createTestDatabase('sqlite');
    const statements: string[] = [];
    const database = await openDatabase({
      dsn: '',
      sqlitePath: test.location,
      sqliteBusyTimeoutMs: 3000,
      maxConnections: 1,
      logQuery: (text) => statements.push(text),
    });
    try {
      await migrate(database.db, 'sqlite', 'main');
      const now = nowSeconds();
      await insertLogs(
        database.db,
        Array.from({ length: 50 }, (_, index) => consumed(now - 3600 + index, index + 1)),
      );
      const job = createRollupJob(
        { readDb: database.readDb, writeDb: database.maintenanceDb, dialect: 'sqlite' },
        { chunkRows: 10, restRatio: 0, gapWaitMs: 0 },
      );
      expect(await job.catchUp()).toBe(50);
      await expectRollupsMatchLogs(database.db);
      const pragmas = statements.filter((text) => /^PRAGMA (cache_size|shrink_memory)/.test(text));
      expect(pragmas).toEqual([
        `PRAGMA cache_size = -${BACKFILL_PAGE_CACHE_KIB}`,
        'PRAGMA cache_size = -2000',
        'PRAGMA shrink_memory',
      ]);
      const [size] = await sql<{ cache_size: number }>`PRAGMA cache_size`
        .execute(database.maintenanceDb)
        .then((result) => result.rows);
      expect(size?.cache_size).toBe(-2000);
      // A run of less than a chunk (the job's every second once caught up) leaves the cache alone.
      statements.length = 0;
      await insertLogs(database.db, [consumed(now, 7)]);
      expect(await job.catchUp()).toBe(1);
      expect(statements.filter((text) => text.startsWith('PRAGMA cache_size ='))).toEqual([]);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
