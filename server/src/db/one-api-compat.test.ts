import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { LIMIT_FIELDS } from '@sluice/contract/schemas/limits';
import { QUOTA_ALERT_FIELDS } from '@sluice/contract/schemas/quota-alerts';
import { LOG_TYPE } from '@sluice/contract/statuses';
import type { ColumnMetadata, Kysely, TableMetadata } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../boot.js';
import { apiClient } from '../test-support/api-client.js';
import { ONE_API_TABLE_NAMES } from '../test-support/one-api-gorm-ddl.js';
import {
  ALICE_ACCESS_TOKEN,
  ALICE_KEY_1,
  ALICE_KEY_2,
  ALICE_PASSWORD,
  ROOT_ACCESS_TOKEN,
  ROOT_PASSWORD,
  writeOneApiDatabase,
} from '../test-support/one-api-rows.js';
import { createTestDatabase, testDialects, type TestDatabase } from '../test-support/test-databases.js';
import { bootWith } from '../test-support/test-sluice.js';
import { openDatabase } from './database.js';
import type { Tables } from './tables.js';

const ORIGINAL_TABLES = ONE_API_TABLE_NAMES;

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
    await writeOneApiDatabase(database);
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
    // Sluice's limits and budgets (migration 0007) are added to users and tokens, unset on every row,
    // and the users' own alert thresholds (migration 0014), null (the site's) on every row.
    const unset = Object.fromEntries(LIMIT_FIELDS.map((field) => [field, null]));
    const siteAlerts = Object.fromEntries(QUOTA_ALERT_FIELDS.map((field) => [field, null]));
    expect(after['users']).toEqual(rowsBefore['users']!.map((row) => ({ ...row, ...unset, ...siteAlerts })));
    expect(after['tokens']).toEqual(rowsBefore['tokens']!.map((row) => ({ ...row, ...unset })));
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
        'routing',
      ]),
    );
    expect(namesOf('channels')).toContain('test_model');
    for (const table of ['users', 'tokens']) {
      const own = table === 'users' ? [...LIMIT_FIELDS, ...QUOTA_ALERT_FIELDS] : LIMIT_FIELDS;
      expect(namesOf(table)).toEqual([...shapesBefore[table]!.map((column) => column.name), ...own]);
      for (const field of own)
        expect(
          after[table]?.find((column) => column.name === field),
          `${table}.${field}`,
        ).toMatchObject({ isNullable: true });
    }
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
    expect(log.routing).toBeNull();
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
