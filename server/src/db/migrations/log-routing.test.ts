import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../../test-support/test-databases.js';
import { columnsOf, useMigrationDatabase } from '../../test-support/migration-test-database.js';
import { migrate } from './migrations.js';

describe.each(testDialects())('the logs’ routing column on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  it('is added to a logs table with rows, nullable and NULL on them, once', async () => {
    const opened = await open();
    await migrate(opened.db, dialect, 'main');
    // The database as the previous release left it: no column, migration 0013 not run.
    await sql`ALTER TABLE logs DROP COLUMN routing`.execute(opened.db);
    await sql`DELETE FROM sluice_migrations WHERE name = '0013_log_routing'`.execute(opened.db);
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
        client_format: 'openai',
      })
      .execute();
    expect((await columnsOf(opened, 'logs')).map((column) => column.name)).not.toContain('routing');

    expect(await migrate(opened.db, dialect, 'main')).toEqual(['0013_log_routing']);
    const column = (await columnsOf(opened, 'logs')).find((candidate) => candidate.name === 'routing');
    expect(column).toMatchObject({ isNullable: true });
    const [old] = await opened.db.selectFrom('logs').select(['quota', 'routing']).execute();
    expect(old).toEqual({ quota: 7, routing: null });
    // A routing decision of any length fits (TEXT).
    const long = JSON.stringify({ attempts: Array.from({ length: 60 }, (_, channel) => ({ channel })) });
    await opened.db.updateTable('logs').set({ routing: long }).execute();
    expect((await opened.db.selectFrom('logs').select('routing').executeTakeFirst())?.routing).toBe(long);
    expect(await migrate(opened.db, dialect, 'main')).toEqual([]);
  });

  it('is added to a separate logs database, and a main database without logs is left alone', async () => {
    const opened = await open();
    expect(await migrate(opened.db, dialect, 'main', false)).toContain('0013_log_routing');
    expect(await columnsOf(opened, 'logs')).toEqual([]);
    expect(await migrate(opened.db, dialect, 'logs')).toContain('0004_log_routing');
    expect((await columnsOf(opened, 'logs')).map((column) => column.name)).toContain('routing');
  });
});
