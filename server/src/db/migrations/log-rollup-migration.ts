import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dsn.js';
import {
  CUBES,
  LOG_HOURS_TABLE,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
  type CubeDefinition,
} from '../log-rollup-tables.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

type ColumnKind = 'bigint' | 'int' | 'text' | 'short';

const TYPES: Record<Dialect, Record<ColumnKind, string>> = {
  sqlite: { bigint: 'integer', int: 'integer', text: 'text', short: 'text' },
  postgres: { bigint: 'bigint', int: 'integer', text: 'text', short: 'text' },
  // The width of the logs' indexed strings, so that every value fits; the key stays under 3072 bytes.
  mysql: { bigint: 'bigint', int: 'int', text: 'varchar(191)', short: 'varchar(32)' },
};

const CUBE_COLUMNS: readonly (readonly [string, ColumnKind])[] = [
  ['span', 'int'],
  ['bucket', 'bigint'],
  ['user_id', 'bigint'],
  ['username', 'text'],
  ['token_name', 'text'],
  ['channel_id', 'bigint'],
  ['model_name', 'text'],
  ['client_format', 'short'],
  ['requests', 'bigint'],
  ['quota', 'bigint'],
  ['prompt_tokens', 'bigint'],
  ['completion_tokens', 'bigint'],
];

const quote = (name: string, dialect: Dialect) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);

const columnSql = (name: string, kind: ColumnKind, dialect: Dialect) =>
  `${quote(name, dialect)} ${TYPES[dialect][kind]} NOT NULL DEFAULT ${kind === 'text' || kind === 'short' ? "''" : '0'}`;

/**
 * A table made by Sluice alone (no one-api model to match): every column NOT NULL with a default, a
 * primary key the rows are clustered by (InnoDB; WITHOUT ROWID on SQLite) and its secondary indexes.
 */
const createTable = (
  dialect: Dialect,
  name: string,
  columns: readonly (readonly [string, ColumnKind])[],
  key: readonly string[],
  indexes: CubeDefinition['indexes'],
): string[] => {
  const body = [
    ...columns.map(([column, kind]) => columnSql(column, kind, dialect)),
    `PRIMARY KEY (${key.map((column) => quote(column, dialect)).join(', ')})`,
    ...(dialect === 'mysql'
      ? indexes.map(
          (index) =>
            `KEY ${quote(index.name, dialect)} (${index.columns.map((column) => quote(column, dialect)).join(', ')})`,
        )
      : []),
  ];
  const table = `CREATE TABLE IF NOT EXISTS ${quote(name, dialect)} (${body.join(', ')})${
    dialect === 'sqlite' ? ' WITHOUT ROWID' : ''
  }`;
  if (dialect === 'mysql') return [table];
  return [
    table,
    ...indexes.map(
      (index) =>
        `CREATE INDEX IF NOT EXISTS ${quote(index.name, dialect)} ON ${quote(name, dialect)} (${index.columns
          .map((column) => quote(column, dialect))
          .join(', ')})`,
    ),
  ];
};

/** The statements that create the roll-up tables (each IF NOT EXISTS). */
export const rollupTableStatements = (dialect: Dialect): string[] => [
  ...CUBES.flatMap((cube) => createTable(dialect, cube.name, CUBE_COLUMNS, cube.key, cube.indexes)),
  ...createTable(
    dialect,
    LOG_HOURS_TABLE,
    [
      ['hour', 'bigint'],
      ['min_id', 'bigint'],
      ['max_id', 'bigint'],
    ],
    ['hour'],
    [],
  ),
  ...createTable(
    dialect,
    ROLLUP_STATE_TABLE,
    [
      ['name', 'short'],
      ['last_id', 'bigint'],
      ['updated_at', 'bigint'],
    ],
    ['name'],
    [],
  ),
];

/**
 * Migration 0006 (0003 on a separate logs database): the roll-up tables, empty, and the watermark at
 * 0. Nothing is read from the logs here: the roll-up job fills the tables in chunks afterwards (on a
 * one-api database of millions of rows, a backfill that never holds a lock for long).
 */
export const createRollupTables = async (db: AnyDb, dialect: Dialect): Promise<void> => {
  for (const statement of rollupTableStatements(dialect)) await sql.raw(statement).execute(db);
  const state = await db
    .selectFrom(ROLLUP_STATE_TABLE)
    .select('name')
    .where('name', '=', ROLLUP_STATE_NAME)
    .executeTakeFirst();
  if (!state)
    await db
      .insertInto(ROLLUP_STATE_TABLE)
      .values({ name: ROLLUP_STATE_NAME, last_id: 0, updated_at: 0 })
      .execute();
};
