import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { LOG_TYPE } from '@sluice/contract/statuses';
import SqliteDatabase from 'better-sqlite3';
import type { ColumnMetadata, Kysely, TableMetadata } from 'kysely';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../boot.js';
import { hashPassword } from '../lib/password.js';
import { apiClient } from '../test-support/api-client.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../test-support/test-databases.js';
import { bootWith } from '../test-support/test-sluice.js';
import { openDatabase } from './database.js';
import { parseMysqlDsn, type Dialect } from './dsn.js';
import type { Tables } from './tables.js';

/**
 * Column types as GORM (one-api v0.6.9) creates them: `id` is the auto-increment key, `int`/`bigint`
 * Go int/int64, `istr` an indexed (or defaulted) string, `str` a plain string, `bool` a Go bool,
 * `float` a float64, `uint` a Go uint. Explicit `type:` tags (int, char(n), varchar(n), text) are
 * written literally in the statements below.
 */
const GORM_TYPES: Record<
  Dialect,
  Record<'id' | 'int' | 'bigint' | 'istr' | 'str' | 'bool' | 'float' | 'uint' | 'pk', string>
> = {
  sqlite: {
    id: 'integer PRIMARY KEY AUTOINCREMENT',
    int: 'integer',
    bigint: 'integer',
    istr: 'text',
    str: 'text',
    bool: 'numeric',
    float: 'real',
    uint: 'integer',
    pk: '',
  },
  postgres: {
    id: 'bigserial',
    int: 'bigint',
    bigint: 'bigint',
    istr: 'text',
    str: 'text',
    bool: 'boolean',
    float: 'decimal',
    uint: 'bigint',
    pk: ',PRIMARY KEY (`id`)',
  },
  mysql: {
    id: 'bigint AUTO_INCREMENT',
    int: 'bigint',
    bigint: 'bigint',
    istr: 'varchar(191)',
    str: 'longtext',
    bool: 'boolean',
    float: 'double',
    uint: 'bigint unsigned',
    pk: ',PRIMARY KEY (`id`)',
  },
};

/** one-api v0.6.9's tables and indexes, written as GORM's AutoMigrate writes them. */
const oneApiSchema = (dialect: Dialect): string[] => {
  const t = GORM_TYPES[dialect];
  const statements = [
    `CREATE TABLE \`users\` (\`id\` ${t.id},\`username\` ${t.istr} UNIQUE,\`password\` ${t.str} NOT NULL,` +
      `\`display_name\` ${t.istr},\`role\` int DEFAULT 1,\`status\` int DEFAULT 1,\`email\` ${t.istr},` +
      `\`github_id\` ${t.istr},\`wechat_id\` ${t.istr},\`lark_id\` ${t.istr},\`oidc_id\` ${t.istr},` +
      `\`access_token\` char(32),\`quota\` ${t.bigint} DEFAULT 0,\`used_quota\` ${t.bigint} DEFAULT 0,` +
      `\`request_count\` int DEFAULT 0,\`group\` varchar(32) DEFAULT 'default',\`aff_code\` varchar(32),` +
      `\`inviter_id\` int${t.pk})`,
    'CREATE INDEX `idx_users_username` ON `users`(`username`)',
    'CREATE INDEX `idx_users_display_name` ON `users`(`display_name`)',
    'CREATE INDEX `idx_users_email` ON `users`(`email`)',
    'CREATE INDEX `idx_users_github_id` ON `users`(`github_id`)',
    'CREATE INDEX `idx_users_wechat_id` ON `users`(`wechat_id`)',
    'CREATE INDEX `idx_users_lark_id` ON `users`(`lark_id`)',
    'CREATE INDEX `idx_users_oidc_id` ON `users`(`oidc_id`)',
    'CREATE UNIQUE INDEX `idx_users_access_token` ON `users`(`access_token`)',
    'CREATE UNIQUE INDEX `idx_users_aff_code` ON `users`(`aff_code`)',
    'CREATE INDEX `idx_users_inviter_id` ON `users`(`inviter_id`)',

    `CREATE TABLE \`tokens\` (\`id\` ${t.id},\`user_id\` ${t.int},\`key\` char(48),\`status\` ${t.int} DEFAULT 1,` +
      `\`name\` ${t.istr},\`created_time\` ${t.bigint},\`accessed_time\` ${t.bigint},` +
      `\`expired_time\` ${t.bigint} DEFAULT -1,\`remain_quota\` ${t.bigint} DEFAULT 0,` +
      `\`unlimited_quota\` ${t.bool} DEFAULT false,\`used_quota\` ${t.bigint} DEFAULT 0,` +
      `\`models\` ${t.istr} DEFAULT '',\`subnet\` ${t.istr} DEFAULT ''${t.pk})`,
    'CREATE UNIQUE INDEX `idx_tokens_key` ON `tokens`(`key`)',
    'CREATE INDEX `idx_tokens_name` ON `tokens`(`name`)',

    `CREATE TABLE \`channels\` (\`id\` ${t.id},\`type\` ${t.int} DEFAULT 0,\`key\` text,\`status\` ${t.int} DEFAULT 1,` +
      `\`name\` ${t.istr},\`weight\` ${t.uint} DEFAULT 0,\`created_time\` ${t.bigint},\`test_time\` ${t.bigint},` +
      `\`response_time\` ${t.int},\`base_url\` ${t.istr} DEFAULT '',\`other\` ${t.str},\`balance\` ${t.float},` +
      `\`balance_updated_time\` ${t.bigint},\`models\` ${t.str},\`group\` varchar(32) DEFAULT 'default',` +
      `\`used_quota\` ${t.bigint} DEFAULT 0,\`model_mapping\` varchar(1024) DEFAULT '',` +
      `\`priority\` ${t.bigint} DEFAULT 0,\`config\` ${t.str},\`system_prompt\` text${t.pk})`,
    'CREATE INDEX `idx_channels_name` ON `channels`(`name`)',

    `CREATE TABLE \`abilities\` (\`group\` varchar(32),\`model\` ${t.istr},\`channel_id\` ${t.int},` +
      `\`enabled\` ${t.bool},\`priority\` ${t.bigint} DEFAULT 0,PRIMARY KEY (\`group\`,\`model\`,\`channel_id\`))`,
    'CREATE INDEX `idx_abilities_channel_id` ON `abilities`(`channel_id`)',
    'CREATE INDEX `idx_abilities_priority` ON `abilities`(`priority`)',

    `CREATE TABLE \`options\` (\`key\` ${t.istr},\`value\` ${t.str},PRIMARY KEY (\`key\`))`,

    `CREATE TABLE \`redemptions\` (\`id\` ${t.id},\`user_id\` ${t.int},\`key\` char(32),\`status\` ${t.int} DEFAULT 1,` +
      `\`name\` ${t.istr},\`quota\` ${t.bigint} DEFAULT 100,\`created_time\` ${t.bigint},` +
      `\`redeemed_time\` ${t.bigint}${t.pk})`,
    'CREATE UNIQUE INDEX `idx_redemptions_key` ON `redemptions`(`key`)',
    'CREATE INDEX `idx_redemptions_name` ON `redemptions`(`name`)',

    // v0.6.9 has no request_id, elapsed_time, is_stream or system_prompt_reset.
    `CREATE TABLE \`logs\` (\`id\` ${t.id},\`user_id\` ${t.int},\`created_at\` ${t.bigint},\`type\` ${t.int},` +
      `\`content\` ${t.str},\`username\` ${t.istr} DEFAULT '',\`token_name\` ${t.istr} DEFAULT '',` +
      `\`model_name\` ${t.istr} DEFAULT '',\`quota\` ${t.int} DEFAULT 0,\`prompt_tokens\` ${t.int} DEFAULT 0,` +
      `\`completion_tokens\` ${t.int} DEFAULT 0,\`channel_id\` ${t.int}${t.pk})`,
    'CREATE INDEX `idx_logs_user_id` ON `logs`(`user_id`)',
    'CREATE INDEX `idx_created_at_type` ON `logs`(`created_at`,`type`)',
    'CREATE INDEX `index_username_model_name` ON `logs`(`model_name`,`username`)',
    'CREATE INDEX `idx_logs_token_name` ON `logs`(`token_name`)',
    'CREATE INDEX `idx_logs_model_name` ON `logs`(`model_name`)',
    'CREATE INDEX `idx_logs_channel_id` ON `logs`(`channel_id`)',
  ];
  return dialect === 'postgres' ? statements.map((statement) => statement.replaceAll('`', '"')) : statements;
};

/** A raw connection to the fixture database, in the driver of its dialect. */
interface FixtureConnection {
  /** Runs one statement; `?` placeholders, identifiers quoted with backticks. */
  run(statement: string, parameters?: readonly unknown[]): Promise<void>;
  close(): Promise<void>;
}

const toPostgres = (statement: string): string => {
  let index = 0;
  return statement.replaceAll('`', '"').replace(/\?/g, () => `$${(index += 1)}`);
};

const connectFixture = async (database: TestDatabase): Promise<FixtureConnection> => {
  if (database.dialect === 'sqlite') {
    const sqlite = new SqliteDatabase(database.location);
    return {
      run: (statement, parameters = []) => {
        const bound = parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
        sqlite.prepare(statement).run(...bound);
        return Promise.resolve();
      },
      close: () => {
        sqlite.close();
        return Promise.resolve();
      },
    };
  }
  if (database.dialect === 'postgres') {
    const client = new pg.Client({ connectionString: database.location });
    await client.connect();
    return {
      run: async (statement, parameters = []) => {
        await client.query(toPostgres(statement), [...parameters]);
      },
      close: () => client.end(),
    };
  }
  const connection = await createConnection(parseMysqlDsn(database.location));
  return {
    run: async (statement, parameters = []) => {
      await connection.query(statement, [...parameters]);
    },
    close: () => connection.end(),
  };
};

const ROOT_PASSWORD = 'go-root-pass1';
const ALICE_PASSWORD = 'alice-pass-01';
const ROOT_ACCESS_TOKEN = '0123456789abcdef0123456789abcdef';
const ALICE_ACCESS_TOKEN = 'fedcba9876543210fedcba9876543210';
const ALICE_KEY_1 = 'AbCdEfGhIjKlMnOp0A1b2C3d4E5f6A7b8C9d0E1f2A3b4C5d';
const ALICE_KEY_2 = 'QrStUvWxYz012345F6e5D4c3B2a1F0e9D8c7B6a5F4e3D2c1';
const ORIGINAL_TABLES = ['abilities', 'channels', 'logs', 'options', 'redemptions', 'tokens', 'users'];

/** Fills the one-api database the way one-api would have: GORM never sets ids. */
const insertRows = async (connection: FixtureConnection): Promise<void> => {
  // Go's bcrypt writes $2a$; bcryptjs writes $2b$: the algorithm is the same.
  const rootHash = (await hashPassword(ROOT_PASSWORD)).replace(/^\$2b\$/, '$2a$');
  const aliceHash = await hashPassword(ALICE_PASSWORD);
  const user =
    'INSERT INTO `users` (`username`,`password`,`display_name`,`role`,`status`,`email`,`github_id`,`wechat_id`,' +
    '`lark_id`,`oidc_id`,`access_token`,`quota`,`used_quota`,`request_count`,`group`,`aff_code`,`inviter_id`) ' +
    'VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)';
  await connection.run(user, [
    'root',
    rootHash,
    'Root User',
    100,
    1,
    '',
    '',
    '',
    '',
    '',
    ROOT_ACCESS_TOKEN,
    499_999_999_987_655,
    12_345,
    7,
    'default',
    'R00t',
    0,
  ]);
  await connection.run(user, [
    'alice',
    aliceHash,
    'Alice',
    1,
    1,
    'alice@example.com',
    'gh-alice',
    '',
    '',
    '',
    ALICE_ACCESS_TOKEN,
    250_000,
    5_000,
    3,
    'vip',
    'Al1c',
    1,
  ]);
  const token =
    'INSERT INTO `tokens` (`user_id`,`key`,`status`,`name`,`created_time`,`accessed_time`,`expired_time`,' +
    '`remain_quota`,`unlimited_quota`,`used_quota`,`models`,`subnet`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)';
  await connection.run(token, [
    2,
    ALICE_KEY_1,
    1,
    'default',
    1_700_000_000,
    1_700_000_100,
    -1,
    -1,
    true,
    0,
    '',
    '',
  ]);
  await connection.run(token, [
    2,
    ALICE_KEY_2,
    2,
    'limited',
    1_700_000_200,
    1_700_000_300,
    1_900_000_000,
    10_000,
    false,
    4_321,
    'gpt-4o-mini,gpt-4o',
    '10.0.0.0/8',
  ]);
  await connection.run(
    'INSERT INTO `channels` (`type`,`key`,`status`,`name`,`weight`,`created_time`,`test_time`,`response_time`,' +
      '`base_url`,`other`,`balance`,`balance_updated_time`,`models`,`group`,`used_quota`,`model_mapping`,' +
      '`priority`,`config`,`system_prompt`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
    [
      1,
      'sk-upstream',
      1,
      'openai',
      0,
      1_700_000_000,
      0,
      321,
      '',
      '',
      12.5,
      1_700_000_000,
      'gpt-4o-mini,gpt-4o',
      'default,vip',
      4_321,
      '',
      0,
      '{}',
      '',
    ],
  );
  const ability =
    'INSERT INTO `abilities` (`group`,`model`,`channel_id`,`enabled`,`priority`) VALUES (?,?,?,?,?)';
  for (const group of ['default', 'vip'])
    for (const model of ['gpt-4o-mini', 'gpt-4o']) await connection.run(ability, [group, model, 1, true, 0]);
  const option = 'INSERT INTO `options` (`key`,`value`) VALUES (?,?)';
  await connection.run(option, ['SystemName', 'Old One API']);
  await connection.run(option, ['QuotaForNewUser', '777']);
  await connection.run(option, ['SomeRetiredOption', 'kept as it is']);
  await connection.run(
    'INSERT INTO `redemptions` (`user_id`,`key`,`status`,`name`,`quota`,`created_time`,`redeemed_time`) ' +
      'VALUES (?,?,?,?,?,?,?)',
    [1, '0123456789abcdef0123456789abcdef', 1, 'gift', 50_000, 1_700_000_000, 0],
  );
  await connection.run(
    'INSERT INTO `logs` (`user_id`,`created_at`,`type`,`content`,`username`,`token_name`,`model_name`,`quota`,' +
      '`prompt_tokens`,`completion_tokens`,`channel_id`) VALUES (?,?,?,?,?,?,?,?,?,?,?)',
    [
      2,
      1_700_000_500,
      2,
      'model ratio 2.50, completion ratio 4.00',
      'alice',
      'default',
      'gpt-4o',
      1_234,
      100,
      50,
      1,
    ],
  );
};

type Snapshot = Record<string, Record<string, unknown>[]>;

const readAll = async (db: Kysely<Tables>): Promise<Snapshot> => {
  const snapshot: Snapshot = {};
  for (const table of ORIGINAL_TABLES) {
    const rows = await db
      .selectFrom(table as keyof Tables)
      .selectAll()
      .execute();
    // By id where there is one, else by the whole row (abilities and options gain no column).
    const order = (row: Record<string, unknown>) =>
      typeof row['id'] === 'number' ? String(row['id']).padStart(12, '0') : JSON.stringify(row);
    snapshot[table] = (rows as Record<string, unknown>[]).sort((left, right) =>
      order(left).localeCompare(order(right)),
    );
  }
  return snapshot;
};

const columnShape = (column: ColumnMetadata) => ({
  name: column.name,
  dataType: column.dataType,
  isNullable: column.isNullable,
  hasDefaultValue: column.hasDefaultValue,
  isAutoIncrementing: column.isAutoIncrementing,
});

const tableShapes = (tables: readonly TableMetadata[]) =>
  Object.fromEntries(
    tables
      .filter((table) => ORIGINAL_TABLES.includes(table.name))
      .map((table) => [table.name, table.columns.map(columnShape)]),
  );

const isTrue = (value: unknown): boolean => value === true || value === 1;

describe.each(testDialects())('booting on a one-api v0.6.9 database (%s)', (dialect) => {
  let database: TestDatabase;
  let sluice: Sluice | undefined;
  let rowsBefore: Snapshot;
  let shapesBefore: ReturnType<typeof tableShapes>;

  const db = () => sluice!.database.db;
  const client = () => apiClient(sluice!.app);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const connection = await connectFixture(database);
    try {
      for (const statement of oneApiSchema(dialect)) await connection.run(statement);
      await insertRows(connection);
    } finally {
      await connection.close();
    }
    const peek = await openDatabase({
      dsn: dialect === 'sqlite' ? '' : database.location,
      sqlitePath: database.location,
      sqliteBusyTimeoutMs: 3000,
      maxConnections: 1,
    });
    try {
      rowsBefore = await readAll(peek.db);
      shapesBefore = tableShapes(await peek.db.introspection.getTables());
    } finally {
      await peek.close();
    }
    sluice = await bootWith(database);
  });

  afterAll(async () => {
    await sluice?.close();
    await database?.drop();
  });

  it('starts from the fixture it means to (seven tables, v0.6.9 columns)', () => {
    expect(Object.keys(shapesBefore).sort()).toEqual(ORIGINAL_TABLES);
    expect(shapesBefore['logs']?.map((column) => column.name)).not.toContain('request_id');
    expect(shapesBefore['channels']?.map((column) => column.name)).not.toContain('test_model');
    expect(rowsBefore['users']).toHaveLength(2);
  });

  it('adds no root user', async () => {
    const users = await db().selectFrom('users').select(['id', 'username', 'role']).orderBy('id').execute();
    expect(users).toEqual([
      { id: 1, username: 'root', role: 100 },
      { id: 2, username: 'alice', role: 1 },
    ]);
    expect(await db().selectFrom('tokens').select('id').execute()).toHaveLength(2);
  });

  it('keeps every existing row as it was', async () => {
    const after = await readAll(db());
    for (const table of ORIGINAL_TABLES) expect(after[table], table).toMatchObject(rowsBefore[table]!);
    expect(after['users']).toEqual(rowsBefore['users']);
    expect(after['tokens']).toEqual(rowsBefore['tokens']);
    expect(after['options']).toEqual(rowsBefore['options']);
    expect(after['abilities']).toEqual(rowsBefore['abilities']);
  });

  it('keeps every existing column as it was and adds the missing ones', async () => {
    const tables = await db().introspection.getTables();
    const after = tableShapes(tables);
    for (const [table, columns] of Object.entries(shapesBefore)) {
      for (const column of columns)
        expect(
          after[table]?.find((candidate) => candidate.name === column.name),
          `${table}.${column.name}`,
        ).toEqual(column);
    }
    const namesOf = (table: string) => (after[table] ?? []).map((column) => column.name);
    expect(namesOf('logs')).toEqual(
      expect.arrayContaining([
        'request_id',
        'elapsed_time',
        'is_stream',
        'system_prompt_reset',
        'client_format',
      ]),
    );
    expect(namesOf('channels')).toContain('test_model');
    expect(namesOf('users')).toEqual(shapesBefore['users']!.map((column) => column.name));
    expect(namesOf('tokens')).toEqual(shapesBefore['tokens']!.map((column) => column.name));
    const names = tables.map((table) => table.name);
    expect(names).toEqual(expect.arrayContaining(['sluice_sessions', 'sluice_codes']));
  });

  it('gives the old log row the defaults of the added columns', async () => {
    const log = await db().selectFrom('logs').selectAll().where('user_id', '=', 2).executeTakeFirstOrThrow();
    expect(log).toMatchObject({
      type: LOG_TYPE.consume,
      quota: 1_234,
      model_name: 'gpt-4o',
      channel_id: 1,
      request_id: '',
      elapsed_time: 0,
    });
    expect(isTrue(log.is_stream)).toBe(false);
    expect(isTrue(log.system_prompt_reset)).toBe(false);
    expect(log.client_format).toBeNull();
  });

  it("logs existing users in with one-api's bcrypt hashes ($2a$ from Go, $2b$)", async () => {
    const root = await client().login('root', ROOT_PASSWORD);
    expect(root.body.data).toMatchObject({ id: 1, username: 'root', role: 100 });
    const alice = client();
    await alice.login('alice', ALICE_PASSWORD);
    const self = await alice.get('/api/user/self');
    expect(self.body.data).toMatchObject({
      id: 2,
      username: 'alice',
      display_name: 'Alice',
      email: 'alice@example.com',
      github_id: 'gh-alice',
      quota: 250_000,
      used_quota: 5_000,
      request_count: 3,
      group: 'vip',
      aff_code: 'Al1c',
      inviter_id: 1,
      access_token: ALICE_ACCESS_TOKEN,
    });
    const wrong = await client().post('/api/user/login', { username: 'root', password: '123456' });
    expect(wrong.body.success).toBe(false);
  });

  it("accepts an existing user's access token", async () => {
    const response = await client().get('/api/user/self', {
      headers: { authorization: `Bearer ${ROOT_ACCESS_TOKEN}` },
    });
    expect(response.body.data).toMatchObject({ id: 1, username: 'root' });
  });

  it('reads the stored options (GET /api/status shows the old system name)', async () => {
    const status = await client().get('/api/status');
    expect(status.body.data).toMatchObject({ system_name: 'Old One API' });
    expect(sluice!.services.options.values.QuotaForNewUser).toBe(777);
  });

  it("reads a user's tokens straight from the tokens table", async () => {
    const tokens = await db()
      .selectFrom('tokens')
      .selectAll()
      .where('user_id', '=', 2)
      .orderBy('id')
      .execute();
    expect(tokens).toHaveLength(2);
    expect(tokens.map((token) => token.key)).toEqual([ALICE_KEY_1, ALICE_KEY_2]);
    expect(tokens[0]).toMatchObject({
      name: 'default',
      status: 1,
      expired_time: -1,
      remain_quota: -1,
      created_time: 1_700_000_000,
    });
    expect(isTrue(tokens[0]!.unlimited_quota)).toBe(true);
    expect(tokens[1]).toMatchObject({
      name: 'limited',
      status: 2,
      expired_time: 1_900_000_000,
      remain_quota: 10_000,
      used_quota: 4_321,
      models: 'gpt-4o-mini,gpt-4o',
      subnet: '10.0.0.0/8',
    });
    expect(isTrue(tokens[1]!.unlimited_quota)).toBe(false);
  });

  it('reads the channel as numbers where one-api stored numbers', async () => {
    const channel = await db().selectFrom('channels').selectAll().executeTakeFirstOrThrow();
    expect(channel).toMatchObject({
      id: 1,
      type: CHANNEL_TYPE.openAi,
      balance: 12.5,
      used_quota: 4_321,
      group: 'default,vip',
    });
  });

  it('registers a new user on the old tables, after the existing ids', async () => {
    const username = 'newcomer';
    const response = await client().post('/api/user/register', { username, password: 'password123' });
    expect(response.body).toEqual({ success: true, message: '' });
    const row = await db()
      .selectFrom('users')
      .selectAll()
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    expect(row.id).toBe(3);
    expect(row.quota).toBe(777);
    const tokens = await db().selectFrom('tokens').selectAll().where('user_id', '=', row.id).execute();
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.id).toBe(3);
    const logs = await db().selectFrom('logs').selectAll().where('user_id', '=', row.id).execute();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ type: LOG_TYPE.system, request_id: '' });
    await client().login(username, 'password123');
  });

  it('changes nothing more on a second boot', async () => {
    const before = await readAll(db());
    const again = await bootWith(database);
    try {
      expect(await readAll(again.database.db)).toEqual(before);
    } finally {
      await again.close();
    }
  });
});
