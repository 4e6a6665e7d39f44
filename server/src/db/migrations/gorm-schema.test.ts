import { LIMIT_FIELDS } from '@sluice/contract/schemas/limits';
import { QUOTA_ALERT_FIELDS } from '@sluice/contract/schemas/quota-alerts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Dialect } from '../dsn.js';
import { connectFixture, runOn } from '../../test-support/fixture-connection.js';
import { migrateMainDatabase } from '../../test-support/migrate-database.js';
import { ONE_API_TABLE_NAMES, oneApiGormDdl } from '../../test-support/one-api-gorm-ddl.js';
import { writeOneApiDatabase } from '../../test-support/one-api-rows.js';
import { autoMigrateChanges, readOneApiSchema, type SchemaShape } from '../../test-support/schema-shape.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../../test-support/test-databases.js';

/** SQLite keeps each table's CREATE statement: GORM's migrator parses it (types, defaults, constraints). */
const sqliteTableSql = async (database: TestDatabase): Promise<Record<string, string>> => {
  const connection = await connectFixture(database);
  try {
    const rows = await connection.query("SELECT name, sql FROM sqlite_master WHERE type = 'table'");
    return Object.fromEntries(rows.map((row) => [String(row['name']), String(row['sql'])]));
  } finally {
    await connection.close();
  }
};

describe('autoMigrateChanges', () => {
  const column = (type: string) => ({ type, nullable: true, default: null });
  const shape = (type: string, index = 'idx_t_c'): SchemaShape => ({
    t: { columns: { c: column(type) }, indexes: { [index]: { columns: ['c'], unique: false } } },
  });

  it('finds what GORM would alter or create, and an index over a MySQL TEXT column', () => {
    expect(autoMigrateChanges(shape('varchar(191)'), shape('varchar(191)'), 'mysql')).toEqual([]);
    expect(autoMigrateChanges(shape('varchar(191)'), shape('varchar(1024)', 'idx_other'), 'mysql')).toEqual([
      'ALTER t.c type varchar(1024) → varchar(191)',
      'CREATE INDEX idx_t_c ON t(c)',
    ]);
    expect(autoMigrateChanges(shape('varchar(191)'), shape('longtext'), 'mysql')).toContain(
      'INDEX idx_t_c over the TEXT column t.c',
    );
    expect(autoMigrateChanges({ t: { columns: { c: column('text') }, indexes: {} } }, {}, 'sqlite')).toEqual([
      'CREATE TABLE t',
    ]);
  });
});

describe.each(testDialects())("one-api's tables as GORM makes them (%s)", (dialect: Dialect) => {
  let gorm: TestDatabase;
  let expected: SchemaShape;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    gorm = await createTestDatabase(dialect);
    await runOn(gorm, oneApiGormDdl(dialect, true));
    expected = await readOneApiSchema(gorm);
  });
  afterAll(() => gorm?.drop());
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  it('reads the GORM database it compares with (seven tables, their columns and indexes)', () => {
    expect(Object.keys(expected).sort()).toEqual(ONE_API_TABLE_NAMES);
    expect(Object.keys(expected['logs']!.columns)).toContain('request_id');
    expect(Object.keys(expected['users']!.indexes)).toEqual(
      expect.arrayContaining(['idx_users_username', 'idx_users_access_token']),
    );
    expect(Object.keys(expected['channels']!.columns)).toHaveLength(20);
  });

  it('creates on an empty database the tables GORM creates: types, defaults, NOT NULL, index names', async () => {
    database = await createTestDatabase(dialect);
    await migrateMainDatabase(database);
    const actual = await readOneApiSchema(database);
    expect(autoMigrateChanges(expected, actual, dialect)).toEqual([]);
    for (const table of ONE_API_TABLE_NAMES) {
      for (const [name, want] of Object.entries(expected[table]!.columns))
        expect(actual[table]!.columns[name], `${table}.${name}`).toEqual(want);
      expect(actual[table]!.indexes, table).toMatchObject(expected[table]!.indexes);
    }
    if (dialect === 'mysql') {
      expect(actual['tokens']!.columns['subnet']!.type).toBe('varchar(191)');
      expect(actual['channels']!.columns['base_url']!.type).toBe('varchar(191)');
    }
    if (dialect !== 'sqlite') return;
    // GORM's SQLite migrator reads its types, defaults and uni_ constraints back from this text.
    const gormSql = await sqliteTableSql(gorm);
    const sluiceSql = await sqliteTableSql(database);
    // Sluice's own columns: channels.test_model, logs.client_format added by migration 0004 and
    // logs.routing by 0013, the limits and budgets of users and tokens added by migration 0007 and
    // the users' alert thresholds by 0014 (nullable, no default).
    const integers = (fields: readonly string[]) => fields.map((field) => `, \`${field}\` integer`).join('');
    const limits = integers(LIMIT_FIELDS);
    const own: Record<string, string> = {
      channels: ',`test_model` varchar(191)',
      logs: ', `client_format` varchar(32), `routing` text',
      users: limits + integers(QUOTA_ALERT_FIELDS),
      tokens: limits,
    };
    // SQLite writes an added column after the last column, before the table's constraints.
    const withOwn = (create: string, added: string) => {
      const constraints = create.indexOf(',CONSTRAINT');
      return constraints < 0
        ? create.replace(/\)$/, `${added})`)
        : create.slice(0, constraints) + added + create.slice(constraints);
    };
    for (const table of ONE_API_TABLE_NAMES)
      expect(sluiceSql[table], table).toBe(withOwn(gormSql[table]!, own[table] ?? ''));
  });

  it('leaves a one-api v0.6.9 database one that GORM accepts, with the columns it adds as GORM adds them', async () => {
    database = await createTestDatabase(dialect);
    await writeOneApiDatabase(database);
    expect(autoMigrateChanges(expected, await readOneApiSchema(database), dialect)).toEqual([
      'ADD logs.request_id ' + expected['logs']!.columns['request_id']!.type,
      'ADD logs.elapsed_time ' + expected['logs']!.columns['elapsed_time']!.type,
      'ADD logs.is_stream ' + expected['logs']!.columns['is_stream']!.type,
      'ADD logs.system_prompt_reset ' + expected['logs']!.columns['system_prompt_reset']!.type,
    ]);
    await migrateMainDatabase(database);
    expect(autoMigrateChanges(expected, await readOneApiSchema(database), dialect)).toEqual([]);
  });
});
