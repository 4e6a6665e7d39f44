import { sql } from 'kysely';
import { openDatabase } from '../db/database.js';
import { migrate } from '../db/migrations/migrations.js';
import type { TestDatabase } from './test-databases.js';

/**
 * Runs Sluice's migrations on the main database, as a Sluice starting on it does, and answers the
 * ones it ran; `forgetFrom` first forgets those from that name on (a database an older release left).
 */
export const migrateMainDatabase = async (database: TestDatabase, forgetFrom?: string): Promise<string[]> => {
  const opened = await openDatabase({
    dsn: database.dialect === 'sqlite' ? '' : database.location,
    sqlitePath: database.location,
    sqliteBusyTimeoutMs: 3000,
    maxConnections: 1,
  });
  try {
    if (forgetFrom !== undefined)
      await sql`DELETE FROM sluice_migrations WHERE name >= ${forgetFrom}`.execute(opened.db);
    return await migrate(opened.db, database.dialect, 'main');
  } finally {
    await opened.close();
  }
};
