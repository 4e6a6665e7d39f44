import { pino } from 'pino';
import { loggerOptions } from '../lib/log-options.js';
import { bootSluice, type Sluice } from '../boot.js';
import { readConfig } from '../config/env.js';
import type { Dialect } from '../db/dsn.js';
import { createTestDatabase, type TestDatabase } from './test-databases.js';

export interface TestSluice {
  readonly sluice: Sluice;
  readonly database: TestDatabase;
  /** Boots another instance on the same database (for restarts and multi-instance tests). */
  boot(env?: Record<string, string>): Promise<Sluice>;
  close(): Promise<void>;
}

/** Generous limits so suites never trip the IP limiter unless they mean to. */
const TEST_ENV: Record<string, string> = {
  SESSION_SECRET: 'test-session-secret',
  GLOBAL_API_RATE_LIMIT: '100000',
  GLOBAL_WEB_RATE_LIMIT: '100000',
  CRITICAL_RATE_LIMIT: '100000',
  SYNC_FREQUENCY: '0',
};

export const bootWith = (database: TestDatabase, env: Record<string, string> = {}): Promise<Sluice> =>
  bootSluice(
    readConfig({ ...TEST_ENV, ...database.env, ...env }, () => 'unused'),
    pino(loggerOptions(process.env['TEST_LOG_LEVEL'] ?? 'silent')),
  );

/** A Sluice on a fresh database of the dialect; close() stops it and drops the database. */
export const startTestSluice = async (
  dialect: Dialect,
  env: Record<string, string> = {},
): Promise<TestSluice> => {
  const database = await createTestDatabase(dialect);
  const instances: Sluice[] = [];
  try {
    const sluice = await bootWith(database, env);
    instances.push(sluice);
    return {
      sluice,
      database,
      boot: async (more = {}) => {
        const another = await bootWith(database, { ...env, ...more });
        instances.push(another);
        return another;
      },
      close: async () => {
        for (const instance of instances.reverse()) await instance.close();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
};
