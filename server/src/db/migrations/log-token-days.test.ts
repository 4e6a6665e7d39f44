import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, withRollups } from '../log-rollup-tables.js';
import { testDialects } from '../../test-support/test-databases.js';
import { useMigrationDatabase } from '../../test-support/migration-test-database.js';
import { migrate } from './migrations.js';

const DAY_ONE = 1_700_006_400; // a UTC midnight
const row = (bucket: number, tokenName: string, model: string, requests: number, quota: number) => ({
  span: HOUR,
  bucket,
  user_id: 7,
  username: 'ana',
  token_name: tokenName,
  channel_id: 3,
  model_name: model,
  client_format: 'openai',
  requests,
  quota,
  prompt_tokens: requests * 10,
  completion_tokens: requests * 2,
});

describe.each(testDialects())('migration 0016, by_token’s day buckets, on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  it('sums the hour buckets a release before it left into day buckets, once', async () => {
    const opened = await open();
    const db = withRollups(opened.db);
    await migrate(opened.db, dialect, 'main');
    // The cube as the previous release left it: hour buckets only, migration 0016 not run.
    await db.deleteFrom('sluice_log_by_token').execute();
    await sql`DELETE FROM sluice_migrations WHERE name = '0016_log_token_days'`.execute(opened.db);
    await db
      .insertInto('sluice_log_by_token')
      .values([
        row(DAY_ONE, 'ci', 'gpt-4o', 2, 100),
        row(DAY_ONE + 5 * HOUR, 'ci', 'gpt-4o', 3, 250),
        row(DAY_ONE + 23 * HOUR, 'ci', 'gpt-4o', 1, 1),
        row(DAY_ONE + 5 * HOUR, 'ci', 'o3', 4, 4_000_000_000_000),
        row(DAY_ONE + DAY, 'ci', 'gpt-4o', 5, 9),
        row(DAY_ONE + DAY + HOUR, 'laptop', 'gpt-4o', 6, 11),
      ])
      .execute();

    expect(await migrate(opened.db, dialect, 'main')).toEqual(['0016_log_token_days']);
    const days = await db
      .selectFrom('sluice_log_by_token')
      .select([
        'bucket',
        'token_name',
        'model_name',
        'requests',
        'quota',
        'prompt_tokens',
        'completion_tokens',
      ])
      .where('span', '=', DAY)
      .orderBy('bucket')
      .orderBy('token_name')
      .orderBy('model_name')
      .execute();
    expect(
      days.map((day) =>
        Object.fromEntries(
          Object.entries(day).map(([key, value]) => [key, key.endsWith('name') ? value : Number(value)]),
        ),
      ),
    ).toEqual([
      {
        bucket: DAY_ONE,
        token_name: 'ci',
        model_name: 'gpt-4o',
        requests: 6,
        quota: 351,
        prompt_tokens: 60,
        completion_tokens: 12,
      },
      {
        bucket: DAY_ONE,
        token_name: 'ci',
        model_name: 'o3',
        requests: 4,
        quota: 4_000_000_000_000,
        prompt_tokens: 40,
        completion_tokens: 8,
      },
      {
        bucket: DAY_ONE + DAY,
        token_name: 'ci',
        model_name: 'gpt-4o',
        requests: 5,
        quota: 9,
        prompt_tokens: 50,
        completion_tokens: 10,
      },
      {
        bucket: DAY_ONE + DAY,
        token_name: 'laptop',
        model_name: 'gpt-4o',
        requests: 6,
        quota: 11,
        prompt_tokens: 60,
        completion_tokens: 12,
      },
    ]);
    const hours = await db
      .selectFrom('sluice_log_by_token')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('span', '=', HOUR)
      .executeTakeFirstOrThrow();
    expect(Number(hours.count)).toBe(6);
    expect(await migrate(opened.db, dialect, 'main')).toEqual([]);
  });

  it('runs on a separate logs database, and leaves a main database without logs alone', async () => {
    const opened = await open();
    expect(await migrate(opened.db, dialect, 'main', false)).toContain('0016_log_token_days');
    expect(await migrate(opened.db, dialect, 'logs')).toContain('0005_log_token_days');
  });
});
