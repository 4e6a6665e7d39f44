import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../../test-support/test-databases.js';
import { columnsOf, useMigrationDatabase } from '../../test-support/migration-test-database.js';
import { migrate } from './migrations.js';

describe.each(testDialects())('the budget slices’ held room (migration 0015) on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  it('is added to a budget usage table with rows, 0 on them, once', async () => {
    const opened = await open();
    await migrate(opened.db, dialect, 'main');
    // The database as the release before left it: no column, migration 0015 not run.
    await sql`ALTER TABLE sluice_budget_usage DROP COLUMN held`.execute(opened.db);
    await sql`DELETE FROM sluice_migrations WHERE name = '0015_budget_slices'`.execute(opened.db);
    await sql`INSERT INTO sluice_budget_usage (subject, subject_id, bucket, used) VALUES ('t', 7, 900, 1234)`.execute(
      opened.db,
    );

    expect(await migrate(opened.db, dialect, 'main')).toEqual(['0015_budget_slices']);
    const held = (await columnsOf(opened, 'sluice_budget_usage')).find((column) => column.name === 'held');
    expect(held).toMatchObject({ isNullable: false });
    const row = await opened.db
      .selectFrom('sluice_budget_usage')
      .select(['used', 'held'])
      .where('subject_id', '=', 7)
      .executeTakeFirstOrThrow();
    expect([Number(row.used), Number(row.held)]).toEqual([1234, 0]);
    expect(await migrate(opened.db, dialect, 'main')).toEqual([]);
  });
});
