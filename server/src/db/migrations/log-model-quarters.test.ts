import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { HOUR, QUARTER, withRollups } from '../log-rollup-tables.js';
import { testDialects } from '../../test-support/test-databases.js';
import { useMigrationDatabase } from '../../test-support/migration-test-database.js';
import { migrate } from './migrations.js';

const HOUR_ONE = 1_700_006_400; // a UTC midnight
const log = (
  created_at: number,
  type: number,
  model: string | null,
  quota: number,
  format: string | null,
) => ({
  user_id: 7,
  created_at,
  type,
  content: '',
  username: 'ana',
  token_name: 'ci',
  model_name: model,
  quota,
  prompt_tokens: 10,
  completion_tokens: 2,
  channel_id: 3,
  client_format: format,
  elapsed_time: 0,
  is_stream: false,
  system_prompt_reset: false,
});

describe.each(testDialects())('migration 0017, by_model’s quarter hours, on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  it('sums the consumption rows the roll-ups hold into quarter buckets, once', async () => {
    const opened = await open();
    const db = withRollups(opened.db);
    await migrate(opened.db, dialect, 'main');
    // A log as the previous release left it: folded up to the watermark, hours and days only.
    await sql`DELETE FROM sluice_migrations WHERE name = '0017_log_model_quarters'`.execute(opened.db);
    await db.deleteFrom('sluice_log_by_model').execute();
    await db
      .insertInto('logs')
      .values([
        log(HOUR_ONE, LOG_TYPE.consume, 'gpt-4o', 100, 'openai'),
        log(HOUR_ONE + 899, LOG_TYPE.consume, 'gpt-4o', 250, 'openai'),
        log(HOUR_ONE + 900, LOG_TYPE.consume, 'gpt-4o', 4_000_000_000_000, 'openai'),
        log(HOUR_ONE + 1800, LOG_TYPE.consume, null, 5, null),
        log(HOUR_ONE + 1801, LOG_TYPE.consume, 'o3', 7, 'anthropic'),
        log(HOUR_ONE + 1802, LOG_TYPE.topup, '', 1000, null),
        log(HOUR_ONE + HOUR, LOG_TYPE.consume, 'gpt-4o', 9, 'openai'),
      ])
      .execute();
    const ids = await db.selectFrom('logs').select('id').orderBy('id').execute();
    // The last row is above the watermark: the job folds it (quarters too) after the migration.
    const watermark = Number(ids.at(-2)?.id);
    await db.updateTable('sluice_log_rollup_state').set({ last_id: watermark }).execute();
    // Quarter rows an interrupted attempt left are replaced, not added to.
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
        requests: 99,
        quota: 99,
        prompt_tokens: 99,
        completion_tokens: 99,
      })
      .execute();

    expect(await migrate(opened.db, dialect, 'main')).toEqual(['0017_log_model_quarters']);
    const quarters = await db
      .selectFrom('sluice_log_by_model')
      .select(['bucket', 'model_name', 'client_format', 'requests', 'quota', 'prompt_tokens'])
      .where('span', '=', QUARTER)
      .orderBy('bucket')
      .orderBy('model_name')
      .execute();
    expect(
      quarters.map((row) => ({
        ...row,
        bucket: Number(row.bucket),
        requests: Number(row.requests),
        quota: Number(row.quota),
        prompt_tokens: Number(row.prompt_tokens),
      })),
    ).toEqual([
      {
        bucket: HOUR_ONE,
        model_name: 'gpt-4o',
        client_format: 'openai',
        requests: 2,
        quota: 350,
        prompt_tokens: 20,
      },
      {
        bucket: HOUR_ONE + QUARTER,
        model_name: 'gpt-4o',
        client_format: 'openai',
        requests: 1,
        quota: 4_000_000_000_000,
        prompt_tokens: 10,
      },
      {
        bucket: HOUR_ONE + 2 * QUARTER,
        model_name: '',
        client_format: '',
        requests: 1,
        quota: 5,
        prompt_tokens: 10,
      },
      {
        bucket: HOUR_ONE + 2 * QUARTER,
        model_name: 'o3',
        client_format: 'anthropic',
        requests: 1,
        quota: 7,
        prompt_tokens: 10,
      },
    ]);
    expect(await migrate(opened.db, dialect, 'main')).toEqual([]);
  });

  it('runs on a separate logs database, and leaves a main database without logs alone', async () => {
    const opened = await open();
    expect(await migrate(opened.db, dialect, 'main', false)).toContain('0017_log_model_quarters');
    expect(await migrate(opened.db, dialect, 'logs')).toContain('0006_log_model_quarters');
  });
});
