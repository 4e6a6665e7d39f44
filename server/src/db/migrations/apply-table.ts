import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dsn.js';
import { addColumnStatement, createTableStatements } from './gorm-ddl.js';
import type { ColumnDefinition, TableDefinition } from './table-schema.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const run = async (db: AnyDb, statements: readonly string[]): Promise<void> => {
  for (const statement of statements) await sql.raw(statement).execute(db);
};

const tableNamed = async (db: AnyDb, name: string) =>
  (await db.introspection.getTables()).find((candidate) => candidate.name === name);

/** Adds to an existing table the columns it lacks (nullable or defaulted: no row is rewritten). */
const addMissingColumns = async (
  db: AnyDb,
  dialect: Dialect,
  name: string,
  existing: { columns: readonly { name: string }[] },
  columns: readonly ColumnDefinition[],
): Promise<void> => {
  const present = new Set(existing.columns.map((column) => column.name));
  await run(
    db,
    columns
      .filter((candidate) => !present.has(candidate.name))
      .map((column) => addColumnStatement(name, column, dialect)),
  );
};

/** Adds the columns a table lacks; a table that does not exist is left alone. */
export const addColumns = async (
  db: AnyDb,
  dialect: Dialect,
  name: string,
  columns: readonly ColumnDefinition[],
): Promise<void> => {
  const existing = await tableNamed(db, name);
  if (existing) await addMissingColumns(db, dialect, name, existing, columns);
};

/**
 * Creates the table with its indexes (GORM's DDL: gorm-ddl.ts) when it does not exist; otherwise
 * adds only the columns it lacks (an older one-api database), leaving existing columns, indexes and
 * rows untouched.
 */
export const applyTable = async (db: AnyDb, dialect: Dialect, table: TableDefinition): Promise<void> => {
  const existing = await tableNamed(db, table.name);
  if (existing) return addMissingColumns(db, dialect, table.name, existing, table.columns);
  await run(db, createTableStatements(table, dialect));
};
