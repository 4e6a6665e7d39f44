import SqliteDatabase from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { parseMysqlDsn } from '../db/dsn.js';
import type { TestDatabase } from './test-databases.js';

/** A raw connection to a test database in the driver of its dialect (what another program would use). */
export interface FixtureConnection {
  /** Runs one statement; `?` placeholders, identifiers quoted with backticks. */
  run(statement: string, parameters?: readonly unknown[]): Promise<void>;
  /** Runs one query (written for the dialect as it is) and answers its rows. */
  query(statement: string, parameters?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

const toPostgres = (statement: string): string => {
  let index = 0;
  return statement.replaceAll('`', '"').replace(/\?/g, () => `$${(index += 1)}`);
};

const connectSqlite = (file: string): FixtureConnection => {
  const sqlite = new SqliteDatabase(file);
  const bind = (parameters: readonly unknown[]) =>
    parameters.map((value) => (typeof value === 'boolean' ? Number(value) : value));
  return {
    run: (statement, parameters = []) => {
      sqlite.prepare(statement).run(...bind(parameters));
      return Promise.resolve();
    },
    query: (statement, parameters = []) =>
      Promise.resolve(sqlite.prepare(statement).all(...bind(parameters)) as Record<string, unknown>[]),
    close: () => {
      sqlite.close();
      return Promise.resolve();
    },
  };
};

export const connectFixture = async (database: TestDatabase): Promise<FixtureConnection> => {
  if (database.dialect === 'sqlite') return connectSqlite(database.location);
  if (database.dialect === 'postgres') {
    const client = new pg.Client({ connectionString: database.location });
    await client.connect();
    return {
      run: async (statement, parameters = []) => {
        await client.query(toPostgres(statement), [...parameters]);
      },
      query: async (statement, parameters = []) =>
        (await client.query<Record<string, unknown>>(statement, [...parameters])).rows,
      close: () => client.end(),
    };
  }
  const connection = await createConnection(parseMysqlDsn(database.location));
  return {
    run: async (statement, parameters = []) => {
      await connection.query(statement, [...parameters]);
    },
    query: async (statement, parameters = []) => {
      const [rows] = await connection.query(statement, [...parameters]);
      return rows as Record<string, unknown>[];
    },
    close: () => connection.end(),
  };
};

/** Runs statements on a fresh connection to the database, then closes it. */
export const runOn = async (database: TestDatabase, statements: readonly string[]): Promise<void> => {
  const connection = await connectFixture(database);
  try {
    for (const statement of statements) await connection.run(statement);
  } finally {
    await connection.close();
  }
};
