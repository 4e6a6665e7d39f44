import { afterEach } from 'vitest';
import type { Dialect } from '../db/dsn.js';
import { createTestDatabase, type TestDatabase } from './test-databases.js';
import { openDatabase, type Database } from '../db/database.js';

/** The columns of a table as the database reports them (none when the table is absent). */
export const columnsOf = async (database: Database, table: string) =>
  (await database.db.introspection.getTables()).find((candidate) => candidate.name === table)?.columns ?? [];

/**
 * For a migration test: `open()` gives a fresh, empty database of the dialect (a new one each call),
 * closed and dropped after each test.
 */
export const useMigrationDatabase = (dialect: Dialect): { open: () => Promise<Database> } => {
  let test: TestDatabase | undefined;
  let database: Database | undefined;
  afterEach(async () => {
    await database?.close();
    await test?.drop();
    database = undefined;
    test = undefined;
  });
  return {
    open: async () => {
      test = await createTestDatabase(dialect);
      database = await openDatabase({
        dsn: dialect === 'sqlite' ? '' : test.location,
        sqlitePath: test.location,
        sqliteBusyTimeoutMs: 3000,
        maxConnections: 2,
      });
      return database;
    },
  };
};
