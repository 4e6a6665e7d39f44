import { sql, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';
import type { Dialect } from '../dsn.js';
import type { ColumnDefinition, ColumnKind, TableDefinition } from './table-definitions.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const typeOf = (type: ColumnKind, dialect: Dialect) => {
  switch (type.kind) {
    case 'id':
      return sql.raw(dialect === 'sqlite' ? 'integer' : 'bigint');
    case 'int':
      return sql.raw(dialect === 'sqlite' ? 'integer' : 'bigint');
    case 'bigint':
      return sql.raw(dialect === 'sqlite' ? 'integer' : 'bigint');
    case 'bool':
      return sql.raw(dialect === 'sqlite' ? 'numeric' : 'boolean');
    case 'float':
      return sql.raw(dialect === 'sqlite' ? 'real' : dialect === 'postgres' ? 'double precision' : 'double');
    case 'text':
      return sql.raw(dialect === 'mysql' ? 'longtext' : 'text');
    case 'varchar':
      return sql.raw(dialect === 'sqlite' ? 'text' : `varchar(${type.length})`);
    case 'char':
      return sql.raw(dialect === 'sqlite' ? 'text' : `char(${type.length})`);
  }
};

const defaultOf = (value: string | number | boolean, type: ColumnKind, dialect: Dialect) =>
  type.kind === 'bool' && dialect === 'sqlite' ? Number(value) : value;

const shapeColumn =
  (column: ColumnDefinition, dialect: Dialect) =>
  (builder: ColumnDefinitionBuilder): ColumnDefinitionBuilder => {
    let shaped = builder;
    if (column.type.kind === 'id') {
      shaped = shaped.primaryKey();
      shaped = dialect === 'postgres' ? shaped.generatedByDefaultAsIdentity() : shaped.autoIncrement();
    }
    if (column.notNull) shaped = shaped.notNull();
    if (column.defaultValue !== undefined)
      shaped = shaped.defaultTo(defaultOf(column.defaultValue, column.type, dialect));
    return shaped;
  };

/** Adds to an existing table the columns it lacks (nullable or defaulted: no row is rewritten). */
const addMissingColumns = async (
  db: AnyDb,
  dialect: Dialect,
  name: string,
  existing: { columns: readonly { name: string }[] },
  columns: readonly ColumnDefinition[],
): Promise<void> => {
  const present = new Set(existing.columns.map((column) => column.name));
  for (const column of columns.filter((candidate) => !present.has(candidate.name)))
    await db.schema
      .alterTable(name)
      .addColumn(column.name, typeOf(column.type, dialect), shapeColumn(column, dialect))
      .execute();
};

/** Adds the columns a table lacks; a table that does not exist is left alone. */
export const addColumns = async (
  db: AnyDb,
  dialect: Dialect,
  name: string,
  columns: readonly ColumnDefinition[],
): Promise<void> => {
  const existing = (await db.introspection.getTables()).find((candidate) => candidate.name === name);
  if (existing) await addMissingColumns(db, dialect, name, existing, columns);
};

/**
 * Creates the table with its indexes when it does not exist; otherwise adds only the columns it
 * lacks (an older one-api database), leaving existing columns, indexes and rows untouched.
 */
export const applyTable = async (db: AnyDb, dialect: Dialect, table: TableDefinition): Promise<void> => {
  const existing = (await db.introspection.getTables()).find((candidate) => candidate.name === table.name);
  if (existing) return addMissingColumns(db, dialect, table.name, existing, table.columns);
  let create: CreateTableBuilder<string, string> = db.schema.createTable(table.name);
  for (const column of table.columns) {
    create = create.addColumn(column.name, typeOf(column.type, dialect), shapeColumn(column, dialect));
  }
  if (table.primaryKey) create = create.addPrimaryKeyConstraint(`${table.name}_pkey`, [...table.primaryKey]);
  if (dialect === 'mysql') create = create.modifyEnd(sql`DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await create.execute();
  for (const definition of table.indexes) {
    let create = db.schema
      .createIndex(definition.name)
      .on(table.name)
      .columns([...definition.columns]);
    if (definition.unique) create = create.unique();
    await create.execute();
  }
};
