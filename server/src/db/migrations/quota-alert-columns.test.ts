import { QUOTA_ALERT_FIELDS } from '@sluice/contract/schemas/quota-alerts';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../../test-support/test-databases.js';
import { columnsOf, useMigrationDatabase } from '../../test-support/migration-test-database.js';
import { migrate } from './migrations.js';

describe.each(testDialects())('the users’ own alert thresholds (migration 0014) on %s', (dialect) => {
  const { open } = useMigrationDatabase(dialect);

  it('are added to a users table with rows, nullable and NULL (the site’s) on them, once', async () => {
    const opened = await open();
    await migrate(opened.db, dialect, 'main');
    // The database as the release before left it: no columns, migration 0014 not run.
    for (const field of QUOTA_ALERT_FIELDS)
      await sql`ALTER TABLE users DROP COLUMN ${sql.ref(field)}`.execute(opened.db);
    await sql`DELETE FROM sluice_migrations WHERE name = '0014_quota_alerts'`.execute(opened.db);
    await sql`INSERT INTO users (username, password, display_name, role, status, quota, ${sql.ref('group')}) VALUES ('old', 'x', 'old', 1, 1, 5, 'default')`.execute(
      opened.db,
    );

    expect(await migrate(opened.db, dialect, 'main')).toEqual(['0014_quota_alerts']);
    const columns = await columnsOf(opened, 'users');
    for (const field of QUOTA_ALERT_FIELDS)
      expect(
        columns.find((column) => column.name === field),
        field,
      ).toMatchObject({ isNullable: true });
    const row = await opened.db
      .selectFrom('users')
      .select(['quota', ...QUOTA_ALERT_FIELDS])
      .where('username', '=', 'old')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ quota_alert_threshold: null, token_alert_threshold: null });
    expect(Number(row.quota)).toBe(5);
    // A threshold past 2^31 quota units (thousands of dollars) fits.
    await opened.db.updateTable('users').set({ quota_alert_threshold: 5_000_000_000 }).execute();
    const big = await opened.db.selectFrom('users').select('quota_alert_threshold').executeTakeFirstOrThrow();
    expect(Number(big.quota_alert_threshold)).toBe(5_000_000_000);
    expect(await migrate(opened.db, dialect, 'main')).toEqual([]);
  });
});
