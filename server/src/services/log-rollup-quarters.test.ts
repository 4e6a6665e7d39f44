import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { bucketOf } from '../db/day-bucket.js';
import { DAY, HOUR, QUARTER, QUARTERS_STATE_NAME, withRollups } from '../db/log-rollup-tables.js';
import { migrate } from '../db/migrations/migrations.js';
import { sqlNumber } from '../db/sql-number.js';
import { insertLogs, type LogFixture } from '../test-support/log-fixtures.js';
import { seededRandom } from '../test-support/log-traffic.js';
import { useMigrationDatabase } from '../test-support/migration-test-database.js';
import { testDialects } from '../test-support/test-databases.js';
import { createRollupJob } from './log-rollup-job.js';
import { readSums, type SumFilters } from './log-rollup-read.js';

const START = 1_764_000_000 - (1_764_000_000 % DAY); // a UTC midnight
const MODELS = ['gpt-4o', 'o3', ''];

/** Rows at random seconds of `[from, from + hours·HOUR)`, a few of them top-ups. */
const traffic = (random: (below: number) => number, from: number, hours: number, count: number) =>
  Array.from({ length: count }, (_, index): LogFixture => ({
    user_id: 1 + (index % 3),
    created_at: from + random(hours * HOUR),
    type: index % 17 === 0 ? LOG_TYPE.topup : LOG_TYPE.consume,
    model_name: MODELS[index % MODELS.length] ?? '',
    quota: 1 + random(1000),
    prompt_tokens: random(50),
    completion_tokens: random(20),
  })).sort((a, b) => a.created_at - b.created_at);

/** What readSums must answer, summed here from the rows themselves. */
const truth = (
  rows: readonly LogFixture[],
  window: { from: number; to: number },
  shift: number,
  model = '',
) => {
  const sums = new Map<string, { requests: number; quota: number; prompt: number; completion: number }>();
  for (const row of rows) {
    if (row.type !== LOG_TYPE.consume || row.created_at < window.from || row.created_at >= window.to)
      continue;
    if (model !== '' && row.model_name !== model) continue;
    const key = `${bucketOf(row.created_at, shift, DAY)} ${row.model_name ?? ''}`;
    const sum = sums.get(key) ?? { requests: 0, quota: 0, prompt: 0, completion: 0 };
    sum.requests += 1;
    sum.quota += row.quota ?? 0;
    sum.prompt += row.prompt_tokens ?? 0;
    sum.completion += row.completion_tokens ?? 0;
    sums.set(key, sum);
  }
  return [...sums].sort(([a], [b]) => a.localeCompare(b));
};

describe.each(testDialects())('quarter hours after an upgrade, on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  it('reads zones not in whole hours exactly across the hour the quarters start from', async () => {
    const opened = await open();
    const db = opened.db;
    await migrate(db, dialect, 'main');
    const fold = async () => {
      const job = createRollupJob(
        { readDb: db, writeDb: db, dialect },
        { chunkRows: 97, gapWaitMs: 0, restRatio: 0 },
      );
      while ((await job.step()) > 0);
    };
    // Two days folded by a build before migration 0017: no quarter rows, the migration not run.
    await sql`DELETE FROM sluice_migrations WHERE name = '0017_log_model_quarters'`.execute(db);
    const { between } = seededRandom(17);
    const random = (below: number) => between(0, below - 1);
    const before = traffic(random, START, 48, 900);
    await insertLogs(db, before);
    await fold();
    await withRollups(db).deleteFrom('sluice_log_by_model').where('span', '=', QUARTER).execute();
    await withRollups(db)
      .deleteFrom('sluice_log_rollup_state')
      .where('name', '=', QUARTERS_STATE_NAME)
      .execute();

    expect(await migrate(db, dialect, 'main')).toEqual(['0017_log_model_quarters']);
    // Two more days folded by this build, with quarters (MySQL's job leaves the newest row above the
    // watermark: it is read raw).
    const after = traffic(random, START + 48 * HOUR, 48, 900);
    await insertLogs(db, after);
    await fold();
    const state = await withRollups(db)
      .selectFrom('sluice_log_rollup_state')
      .select('last_id')
      .where('name', '=', QUARTERS_STATE_NAME)
      .executeTakeFirstOrThrow();
    expect(sqlNumber(state.last_id)).toBe(bucketOf(before.at(-1)?.created_at ?? 0, 0, HOUR) + HOUR);

    const rows = [...before, ...after];
    for (const shift of [5.5 * HOUR, 345 * 60, -210 * 60, 8 * HOUR])
      for (const window of [
        { from: START + 7 * 60, to: START + 96 * HOUR - 11 },
        { from: START + 30 * HOUR + 1, to: START + 70 * HOUR + 1234 },
      ])
        for (const filters of [{}, { model_name: 'o3' }] satisfies SumFilters[]) {
          const read = await readSums(db, filters, window, { dayShift: shift, model: true });
          expect(
            read
              .map((row): [string, unknown] => [
                `${row.day} ${row.model_name}`,
                {
                  requests: row.requests,
                  quota: row.quota,
                  prompt: row.prompt_tokens,
                  completion: row.completion_tokens,
                },
              ])
              .sort(([a], [b]) => a.localeCompare(b)),
            `shift ${shift}, ${window.from}–${window.to}, ${JSON.stringify(filters)}`,
          ).toEqual(truth(rows, window, shift, filters.model_name));
        }
  }, 120_000);
});
