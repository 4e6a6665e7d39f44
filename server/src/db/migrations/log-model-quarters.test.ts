import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { HOUR, QUARTER, QUARTERS_STATE_NAME, withRollups } from '../log-rollup-tables.js';
import { sqlNumber } from '../sql-number.js';
import { testDialects } from '../../test-support/test-databases.js';
import { useMigrationDatabase } from '../../test-support/migration-test-database.js';
import { migrate } from './migrations.js';

const HOUR_ONE = 1_700_006_400; // a UTC midnight

describe.each(testDialects())('migration 0017, by_model’s quarter hours, on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  const quartersFrom = async (db: ReturnType<typeof withRollups>) => {
    const rows = await db
      .selectFrom('sluice_log_rollup_state')
      .select('last_id')
      .where('name', '=', QUARTERS_STATE_NAME)
      .execute();
    return rows.map((row) => sqlNumber(row.last_id));
  };

  it('has quarters from the first hour on a database nothing was folded in yet', async () => {
    const opened = await open();
    await migrate(opened.db, dialect, 'main');
    expect(await quartersFrom(withRollups(opened.db))).toEqual([0]);
  });

  it('has them from the hour after the last one an earlier build folded, and reads no log row', async () => {
    const opened = await open();
    const db = withRollups(opened.db);
    await migrate(opened.db, dialect, 'main');
    // As an earlier build left it: folded up to id 500, hours and days only (the hours' id ranges
    // are all the migration reads; the log itself may hold millions of rows).
    await sql`DELETE FROM sluice_migrations WHERE name = '0017_log_model_quarters'`.execute(opened.db);
    await db.deleteFrom('sluice_log_rollup_state').where('name', '=', QUARTERS_STATE_NAME).execute();
    await db.updateTable('sluice_log_rollup_state').set({ last_id: 500 }).execute();
    await db
      .insertInto('sluice_log_hours')
      .values([
        { hour: HOUR_ONE, min_id: 1, max_id: 300 },
        { hour: HOUR_ONE + 2 * HOUR, min_id: 301, max_id: 500 },
        // Rows above the watermark the job has not folded yet cannot be here; an hour the
        // watermark only reaches into (a late row of an earlier hour) counts as folded.
        { hour: HOUR_ONE + 5 * HOUR, min_id: 480, max_id: 900 },
        { hour: HOUR_ONE + 9 * HOUR, min_id: 901, max_id: 950 },
      ])
      .execute();
    // A quarter row left by an interrupted attempt would be short: it goes.
    await db
      .insertInto('sluice_log_by_model')
      .values({
        span: QUARTER,
        bucket: HOUR_ONE,
        user_id: 0,
        username: '',
        token_name: '',
        channel_id: 0,
        model_name: 'gpt-4o',
        client_format: 'openai',
        requests: 9,
        quota: 9,
        prompt_tokens: 9,
        completion_tokens: 9,
      })
      .execute();

    expect(await migrate(opened.db, dialect, 'main')).toEqual(['0017_log_model_quarters']);
    expect(await quartersFrom(db)).toEqual([HOUR_ONE + 6 * HOUR]);
    const quarters = await db
      .selectFrom('sluice_log_by_model')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('span', '=', QUARTER)
      .executeTakeFirstOrThrow();
    expect(Number(quarters.count)).toBe(0);
    expect(await migrate(opened.db, dialect, 'main')).toEqual([]);
  });

  it('runs on a separate logs database, and leaves a main database without logs alone', async () => {
    const opened = await open();
    expect(await migrate(opened.db, dialect, 'main', false)).toContain('0017_log_model_quarters');
    expect(await migrate(opened.db, dialect, 'logs')).toContain('0006_log_model_quarters');
    expect(await quartersFrom(withRollups(opened.db))).toEqual([0]);
  });
});
