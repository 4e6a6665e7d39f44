import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { parseMysqlDsn, type Dialect } from '../db/dsn.js';

/** A database made for one suite: `env` points Sluice at it; `drop` removes it. */
export interface TestDatabase {
  readonly dialect: Dialect;
  readonly env: Record<string, string>;
  /** For SQLite, the file; for the servers, the DSN. */
  readonly location: string;
  drop(): Promise<void>;
}

/** Every dialect this run tests: SQLite always, the servers when their DSNs are set (CI sets them). */
export const testDialects = (): Dialect[] => [
  'sqlite',
  ...(process.env['TEST_PG_DSN'] ? (['postgres'] as const) : []),
  ...(process.env['TEST_MYSQL_DSN'] ? (['mysql'] as const) : []),
];

export const testRedisUrl = (): string | undefined => process.env['TEST_REDIS_URL'] || undefined;

const uniqueName = () => `sluice_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;

/** A database server's suite keeps its billing journal in a folder of its own (SQLite's is beside the file). */
const journalDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-journal-'));
  return { dir, drop: () => rmSync(dir, { recursive: true, force: true }) };
};

const createSqlite = (): TestDatabase => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-test-'));
  const file = join(dir, 'sluice.db');
  return {
    dialect: 'sqlite',
    env: { SQL_DSN: '', SQLITE_PATH: file },
    location: file,
    drop: () => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
};

const createPostgres = async (adminDsn: string): Promise<TestDatabase> => {
  const name = uniqueName();
  const journal = journalDir();
  const admin = new pg.Client({ connectionString: adminDsn });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminDsn);
  url.pathname = `/${name}`;
  const dsn = url.toString();
  return {
    dialect: 'postgres',
    env: { SQL_DSN: dsn, BILLING_JOURNAL_DIR: journal.dir },
    location: dsn,
    drop: async () => {
      journal.drop();
      const client = new pg.Client({ connectionString: adminDsn });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
};

const createMysql = async (adminDsn: string): Promise<TestDatabase> => {
  const name = uniqueName();
  const journal = journalDir();
  const connection = parseMysqlDsn(adminDsn);
  const admin = await createConnection({ ...connection, database: connection.database || undefined });
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
  await admin.end();
  const password = connection.password ? `:${connection.password}` : '';
  const dsn = `${connection.user}${password}@tcp(${connection.host}:${connection.port})/${name}`;
  return {
    dialect: 'mysql',
    env: { SQL_DSN: dsn, BILLING_JOURNAL_DIR: journal.dir },
    location: dsn,
    drop: async () => {
      journal.drop();
      const client = await createConnection({ ...connection, database: connection.database || undefined });
      await client.query(`DROP DATABASE IF EXISTS ${name}`);
      await client.end();
    },
  };
};

export const createTestDatabase = (dialect: Dialect): Promise<TestDatabase> => {
  if (dialect === 'sqlite') return Promise.resolve(createSqlite());
  if (dialect === 'postgres') return createPostgres(process.env['TEST_PG_DSN'] ?? '');
  return createMysql(process.env['TEST_MYSQL_DSN'] ?? '');
};
