import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../../test-support/test-databases.js';
import { columnsOf, useMigrationDatabase } from '../../test-support/migration-test-database.js';
import { migrate } from './migrations.js';

describe.each(testDialects())('the logs’ client_format column on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  it('is added to a logs table an earlier Sluice made, NULL on its rows, once', async () => {
    const opened = await open();
    await migrate(opened.db, dialect, 'main');
    // The database as the previous release left it: no column, migration 0004 (and later) not run.
    await sql`ALTER TABLE logs DROP COLUMN client_format`.execute(opened.db);
    await sql`DELETE FROM sluice_migrations WHERE name >= '0004'`.execute(opened.db);
    await opened.db
      .insertInto('logs')
      .values({
        user_id: 1,
        created_at: 1_700_000_000,
        type: LOG_TYPE.consume,
        content: 'model ratio 2.50',
        model_name: 'gpt-4o',
        quota: 7,
        prompt_tokens: 1,
        completion_tokens: 1,
        channel_id: 1,
        elapsed_time: 0,
        is_stream: false,
        system_prompt_reset: false,
      })
      .execute();
    expect((await columnsOf(opened, 'logs')).map((column) => column.name)).not.toContain('client_format');

    expect((await migrate(opened.db, dialect, 'main'))[0]).toBe('0004_log_client_format');
    const column = (await columnsOf(opened, 'logs')).find((candidate) => candidate.name === 'client_format');
    expect(column).toMatchObject({ isNullable: true });
    const [old] = await opened.db.selectFrom('logs').select(['quota', 'client_format']).execute();
    expect(old).toEqual({ quota: 7, client_format: null });
    expect(await migrate(opened.db, dialect, 'main')).toEqual([]);
  });

  it('is added to a separate logs database, and a main database without logs is left alone', async () => {
    const opened = await open();
    expect(await migrate(opened.db, dialect, 'main', false)).toContain('0004_log_client_format');
    expect(await columnsOf(opened, 'logs')).toEqual([]);
    expect(await migrate(opened.db, dialect, 'logs')).toEqual([
      '0001_logs',
      '0002_log_client_format',
      '0003_log_rollups',
      '0004_log_routing',
      '0005_log_token_days',
      '0006_log_model_quarters',
    ]);
    expect((await columnsOf(opened, 'logs')).map((column) => column.name)).toContain('client_format');
  });
});
