import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../../boot.js';
import { nowSeconds } from '../../lib/time.js';
import { createRollupJob } from '../../services/log-rollup-job.js';
import { readWatermark } from '../../services/log-rollup-writes.js';
import { connectFixture, type FixtureConnection } from '../../test-support/fixture-connection.js';
import { expectRollupsMatchLogs, randomTraffic, seededRandom } from '../../test-support/log-traffic.js';
import { statTruth } from '../../test-support/log-truth.js';
import { writeOneApiDatabase } from '../../test-support/one-api-rows.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../../test-support/test-databases.js';
import { bootWith } from '../../test-support/test-sluice.js';
import type { Dialect } from '../dsn.js';
import { sqlNumber } from '../sql-number.js';
import { ensureLogIndexes, LOG_INDEXES } from './log-indexes.js';

const DAY = 86_400;
/** one-api v0.6.9's columns of the logs table, as its rows are read back. */
const V069_COLUMNS = [
  'id',
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'channel_id',
] as const;

const INDEX_NAMES: Record<Dialect, string> = {
  sqlite: "SELECT name AS name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'logs'",
  postgres: "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'logs'",
  mysql:
    "SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'logs'",
};

const ONE_API_INDEXES = [
  'idx_logs_user_id',
  'idx_created_at_type',
  'index_username_model_name',
  'idx_logs_token_name',
  'idx_logs_model_name',
  'idx_logs_channel_id',
];

describe.each(testDialects())('the console’s indexes and roll-ups on a one-api database of %s', (dialect) => {
  let database: TestDatabase;
  let sluice: Sluice | undefined;
  let rowsBefore: Record<string, unknown>[];
  let fileBefore: unknown;
  const now = nowSeconds();

  const readRows = async (connection: FixtureConnection) =>
    (await connection.query(`SELECT ${V069_COLUMNS.join(', ')} FROM logs ORDER BY id`)).map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([key, value]) => [
          key,
          typeof value === 'string' ? value : sqlNumber(value),
        ]),
      ),
    );
  /** PostgreSQL: the table's file; a rewrite (ALTER TABLE … TYPE, VACUUM FULL) gives it a new one. */
  const tableFile = async (connection: FixtureConnection) =>
    dialect === 'postgres'
      ? (await connection.query("SELECT relfilenode FROM pg_class WHERE relname = 'logs'"))[0]?.[
          'relfilenode'
        ]
      : undefined;
  const indexNames = async () => {
    const connection = await connectFixture(database);
    try {
      return (await connection.query(INDEX_NAMES[dialect])).map((row) => String(row['name']));
    } finally {
      await connection.close();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await writeOneApiDatabase(database);
    const connection = await connectFixture(database);
    try {
      // A history as one-api wrote it (its columns only), with the holes its own cleanup leaves.
      const traffic = randomTraffic(
        seededRandom(69),
        [
          { id: 1, username: 'root' },
          { id: 2, username: 'alice' },
        ],
        1500,
        now,
      );
      for (const row of traffic)
        await connection.run(
          'INSERT INTO `logs` (`user_id`,`created_at`,`type`,`content`,`username`,`token_name`,`model_name`,`quota`,`prompt_tokens`,`completion_tokens`,`channel_id`) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
          [
            row.user_id,
            row.created_at,
            row.type,
            row.content,
            row.username,
            row.token_name,
            row.model_name,
            row.quota,
            row.prompt_tokens,
            row.completion_tokens,
            row.channel_id,
          ],
        );
      await connection.run('DELETE FROM `logs` WHERE `id` % 7 = 3');
      rowsBefore = await readRows(connection);
      fileBefore = await tableFile(connection);
    } finally {
      await connection.close();
    }
    sluice = await bootWith(database);
  }, 120_000);

  afterAll(async () => {
    await sluice?.close();
    await database?.drop();
  });

  it('adds its indexes beside one-api’s, rewriting no row', async () => {
    const names = await indexNames();
    expect(names).toEqual(expect.arrayContaining(ONE_API_INDEXES));
    for (const index of LOG_INDEXES.filter((candidate) => candidate.dialects.includes(dialect)))
      expect(names).toContain(index.name);
    const connection = await connectFixture(database);
    try {
      expect(await readRows(connection)).toEqual(rowsBefore);
      expect(await tableFile(connection)).toEqual(fileBefore);
    } finally {
      await connection.close();
    }
  });

  it('folds the history in on first start (the backfill) to sums equal to its rows', async () => {
    const deps = sluice!.services.deps;
    expect(await readWatermark(deps.logDb)).toBe(0);
    await createRollupJob(
      { readDb: deps.logReadDb, writeDb: deps.logMaintenanceDb, dialect },
      { chunkRows: 113, restRatio: 0 },
    ).catchUp();
    expect(await readWatermark(deps.logDb)).toBeGreaterThan(0);
    await expectRollupsMatchLogs(deps.logDb);
    for (const window of [{}, { start: now - 5 * DAY + 77, end: now - DAY }])
      for (const filters of [{}, { username: 'alice' }, { token_name: 'default', channel: 2 }])
        expect(
          await sluice!.services.logs.stat({
            ...emptyFilter,
            ...filters,
            start_timestamp: window.start ?? 0,
            end_timestamp: window.end ?? 0,
          }),
        ).toEqual(await statTruth(deps.logDb, { ...filters, ...window }));
  });

  it('starts again without building anything, and builds again an index a crashed build left invalid', async () => {
    const before = (await indexNames()).sort();
    const db = sluice!.logDatabase.db;
    if (dialect === 'postgres')
      await sql`UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'idx_logs_username_id'::regclass`.execute(
        db,
      );
    await ensureLogIndexes(db, dialect);
    expect((await indexNames()).sort()).toEqual(before);
    if (dialect === 'postgres') {
      const valid = await sql<{ valid: boolean }>`SELECT indisvalid AS valid FROM pg_index
        WHERE indexrelid = 'idx_logs_username_id'::regclass`.execute(db);
      expect(valid.rows[0]?.valid).toBe(true);
    }
  });
});

const emptyFilter = {
  type: LOG_TYPE.unknown,
  username: '',
  token_name: '',
  model_name: '',
  channel: 0,
  client_format: '' as const,
  start_timestamp: 0,
  end_timestamp: 0,
};
