import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectFixture, runOn, type FixtureConnection } from '../../test-support/fixture-connection.js';
import { migrateMainDatabase } from '../../test-support/migrate-database.js';
import { oneApiGormDdl } from '../../test-support/one-api-gorm-ddl.js';
import { autoMigrateChanges, readOneApiSchema, type SchemaShape } from '../../test-support/schema-shape.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../../test-support/test-databases.js';

const withConnection = async <T>(
  database: TestDatabase,
  use: (connection: FixtureConnection) => Promise<T>,
) => {
  const connection = await connectFixture(database);
  try {
    return await use(connection);
  } finally {
    await connection.close();
  }
};

/** one-api's tables as Sluice created them on MySQL before migration 0005. */
const OLDER_SLUICE_MYSQL = [
  "ALTER TABLE `tokens` MODIFY COLUMN `models` longtext, MODIFY COLUMN `subnet` varchar(1024) DEFAULT ''",
  'ALTER TABLE `channels` MODIFY COLUMN `key` longtext NOT NULL, MODIFY COLUMN `weight` bigint DEFAULT 0, ' +
    "MODIFY COLUMN `base_url` varchar(1024) DEFAULT '', MODIFY COLUMN `system_prompt` longtext",
  'ALTER TABLE `users` DROP INDEX `uni_users_username`, DROP INDEX `idx_users_username`, ' +
    'ADD UNIQUE INDEX `idx_users_username` (`username`), RENAME INDEX `idx_users_git_hub_id` TO `idx_users_github_id`, ' +
    'RENAME INDEX `idx_users_we_chat_id` TO `idx_users_wechat_id`',
];

const LONG_BASE_URL = `https://gateway.example.com/${'a'.repeat(250)}`;

describe.each(testDialects())('migration 0005: GORM’s column types (%s)', (dialect) => {
  let gorm: TestDatabase;
  let database: TestDatabase;
  let expected: SchemaShape;

  beforeAll(async () => {
    gorm = await createTestDatabase(dialect);
    await runOn(gorm, oneApiGormDdl(dialect, true));
    expected = await readOneApiSchema(gorm);
    database = await createTestDatabase(dialect);
    await migrateMainDatabase(database);
  });
  afterAll(async () => {
    await gorm?.drop();
    await database?.drop();
  });

  it('changes nothing on tables that are already GORM’s', async () => {
    const before = await readOneApiSchema(database);
    expect(await migrateMainDatabase(database, '0005')).toContain('0005_gorm_column_types');
    expect(await readOneApiSchema(database)).toEqual(before);
  });

  it('runs on a database that ran a later-numbered migration first (work lands in any order)', async () => {
    await runOn(database, ["DELETE FROM sluice_migrations WHERE name = '0005_gorm_column_types'"]);
    expect(await migrateMainDatabase(database)).toEqual(['0005_gorm_column_types']);
    expect(await migrateMainDatabase(database)).toEqual([]);
  });

  it.runIf(dialect === 'mysql')(
    'alters an older Sluice’s MySQL tables to GORM’s types, but a column a row does not fit',
    async () => {
      await runOn(database, OLDER_SLUICE_MYSQL);
      await withConnection(database, async (connection) => {
        await connection.run('INSERT INTO `users` (`username`,`password`) VALUES (?,?)', ['old', 'hash']);
        await connection.run(
          'INSERT INTO `channels` (`key`,`name`,`base_url`,`weight`,`system_prompt`) VALUES (?,?,?,?,?)',
          ['sk-old', 'old', LONG_BASE_URL, 3, 'be brief'],
        );
        await connection.run('INSERT INTO `tokens` (`key`,`subnet`,`models`) VALUES (?,?,?)', [
          'k'.repeat(48),
          '10.0.0.0/8',
          'gpt-4o',
        ]);
      });
      expect(autoMigrateChanges(expected, await readOneApiSchema(database), dialect)).toEqual([
        'ALTER channels.key type longtext → text',
        'ALTER channels.weight type bigint → bigint unsigned',
        'ALTER channels.base_url type varchar(1024) → varchar(191)',
        'ALTER channels.system_prompt type longtext → text',
        'ALTER tokens.models type longtext → text',
        'ALTER tokens.subnet type varchar(1024) → varchar(191)',
        'CREATE INDEX idx_users_git_hub_id ON users(github_id)',
        'INDEX idx_users_username differs',
        'CREATE INDEX idx_users_we_chat_id ON users(wechat_id)',
        'CREATE INDEX uni_users_username ON users(username)',
      ]);

      expect((await migrateMainDatabase(database, '0005'))[0]).toBe('0005_gorm_column_types');
      // base_url holds a 278-character URL: varchar(191) cannot, so it stays as it was.
      expect(autoMigrateChanges(expected, await readOneApiSchema(database), dialect)).toEqual([
        'ALTER channels.base_url type varchar(1024) → varchar(191)',
      ]);
      const rows = await withConnection(database, async (connection) => ({
        channel: await connection.query(
          'SELECT `key`, `base_url`, `weight`, `system_prompt` FROM `channels`',
        ),
        token: await connection.query('SELECT `subnet`, `models` FROM `tokens`'),
        duplicate: await connection
          .run('INSERT INTO `users` (`username`,`password`) VALUES (?,?)', ['old', 'again'])
          .then(
            () => 'inserted',
            (error: unknown) => String(error),
          ),
      }));
      expect(rows.channel).toEqual([
        { key: 'sk-old', base_url: LONG_BASE_URL, weight: 3, system_prompt: 'be brief' },
      ]);
      expect(rows.token).toEqual([{ subnet: '10.0.0.0/8', models: 'gpt-4o' }]);
      expect(rows.duplicate).toMatch(/Duplicate entry 'old' for key '(users\.)?uni_users_username'/);

      await runOn(database, ["UPDATE `channels` SET `base_url` = 'https://short.example.com'"]);
      await migrateMainDatabase(database, '0005');
      expect(autoMigrateChanges(expected, await readOneApiSchema(database), dialect)).toEqual([]);
    },
  );
});
