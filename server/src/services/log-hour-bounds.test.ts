import { LOG_TYPE } from '@sluice/contract/statuses';
import { describe, expect, it } from 'vitest';
import {
  DAY,
  HOUR,
  LOG_HOURS_TABLE,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
  withRollups,
} from '../db/log-rollup-tables.js';
import { migrate } from '../db/migrations/migrations.js';
import { sqlNumber } from '../db/sql-number.js';
import { insertLogs } from '../test-support/log-fixtures.js';
import { useMigrationDatabase } from '../test-support/migration-test-database.js';
import { testDialects } from '../test-support/test-databases.js';
import { plansBlindToSubqueries, readKnownBounds } from './log-hour-bounds.js';
import { createRollupJob } from './log-rollup-job.js';

const START = 1_764_000_000 - (1_764_000_000 % DAY); // a UTC midnight

describe.each(testDialects())('the roll-ups’ progress read ahead, on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  it('gives the watermark and the folded id range of each hour asked for, none for an hour not folded', async () => {
    const opened = await open();
    const db = withRollups(opened.db);
    await migrate(opened.db, dialect, 'main');
    expect(plansBlindToSubqueries(opened.db)).toBe(dialect === 'postgres');
    // Ten rows in each of six hours, in time order.
    await insertLogs(
      opened.db,
      Array.from({ length: 60 }, (_, index) => ({
        user_id: 1,
        created_at: START + Math.floor(index / 10) * HOUR + (index % 10) * 60,
        type: LOG_TYPE.consume,
        quota: 1,
      })),
    );
    const nothing = await readKnownBounds(db, [START, START + HOUR]);
    expect(nothing.hours.size).toBe(0);
    // Part of the log folded: 25 rows in chunks of 5.
    const job = createRollupJob(
      { readDb: opened.db, writeDb: opened.db, dialect },
      { chunkRows: 5, gapWaitMs: 0, restRatio: 0 },
    );
    for (let step = 0; step < 5; step += 1) await job.step();
    const hours = [0, 1, 2, 3, 4, 5].map((index) => START + index * HOUR);
    const known = await readKnownBounds(db, [...hours, START + HOUR]);
    const state = await db
      .selectFrom(ROLLUP_STATE_TABLE)
      .select('last_id')
      .where('name', '=', ROLLUP_STATE_NAME)
      .executeTakeFirstOrThrow();
    expect(known.watermark).toBe(sqlNumber(state.last_id));
    const recorded = await db.selectFrom(LOG_HOURS_TABLE).selectAll().orderBy('hour').execute();
    expect([...known.hours].sort(([a], [b]) => a - b)).toEqual(
      recorded.map((row) => [
        sqlNumber(row.hour),
        { min: sqlNumber(row.min_id), max: sqlNumber(row.max_id) },
      ]),
    );
    // Two whole hours and half of the third are folded; the last three hours are not.
    expect([...known.hours.keys()].sort((a, b) => a - b)).toEqual(hours.slice(0, 3));
  });
});
