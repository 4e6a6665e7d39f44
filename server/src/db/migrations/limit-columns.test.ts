import { LIMIT_FIELDS } from '@sluice/contract/schemas/limits';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../../test-support/test-databases.js';
import { columnsOf, useMigrationDatabase } from '../../test-support/migration-test-database.js';
import { migrate } from './migrations.js';

describe.each(testDialects())(
  'the limits and budgets of users and tokens (migration 0007) on %s',
  (dialect) => {
    const { open } = useMigrationDatabase(dialect);

    it('are added to the tables an earlier Sluice made, nullable, NULL on their rows, once', async () => {
      const opened = await open();
      await migrate(opened.db, dialect, 'main');
      // The database as the release before left it: no limit columns, migration 0007 not run.
      for (const table of ['users', 'tokens'])
        for (const field of LIMIT_FIELDS)
          await sql`ALTER TABLE ${sql.table(table)} DROP COLUMN ${sql.ref(field)}`.execute(opened.db);
      await sql`DELETE FROM sluice_migrations WHERE name = '0007_limits'`.execute(opened.db);
      await sql`INSERT INTO users (username, password, display_name, role, status, quota, ${sql.ref('group')}) VALUES ('old', 'x', 'old', 1, 1, 5, 'default')`.execute(
        opened.db,
      );
      await sql`INSERT INTO tokens (user_id, ${sql.ref('key')}, name, status, remain_quota) VALUES (1, 'k', 'old', 1, 7)`.execute(
        opened.db,
      );

      expect(await migrate(opened.db, dialect, 'main')).toEqual(['0007_limits']);
      for (const table of ['users', 'tokens']) {
        const columns = await columnsOf(opened, table);
        for (const field of LIMIT_FIELDS)
          expect(
            columns.find((column) => column.name === field),
            `${table}.${field}`,
          ).toMatchObject({ isNullable: true });
      }
      const user = await opened.db
        .selectFrom('users')
        .selectAll()
        .where('username', '=', 'old')
        .executeTakeFirstOrThrow();
      const token = await opened.db
        .selectFrom('tokens')
        .selectAll()
        .where('name', '=', 'old')
        .executeTakeFirstOrThrow();
      for (const field of LIMIT_FIELDS) {
        expect(user[field], `users.${field}`).toBeNull();
        expect(token[field], `tokens.${field}`).toBeNull();
      }
      expect(Number(user.quota)).toBe(5);
      expect(Number(token.remain_quota)).toBe(7);
      expect(await migrate(opened.db, dialect, 'main')).toEqual([]);
    });

    it('hold a value past 2^31 (a budget in quota units) and read back as a number', async () => {
      const opened = await open();
      await migrate(opened.db, dialect, 'main');
      await sql`INSERT INTO users (username, password, display_name, role, status, quota, ${sql.ref('group')}, budget_monthly) VALUES ('big', 'x', 'big', 1, 1, 0, 'default', 5000000000)`.execute(
        opened.db,
      );
      const row = await opened.db
        .selectFrom('users')
        .select('budget_monthly')
        .where('username', '=', 'big')
        .executeTakeFirstOrThrow();
      expect(Number(row.budget_monthly)).toBe(5_000_000_000);
    });
  },
);
