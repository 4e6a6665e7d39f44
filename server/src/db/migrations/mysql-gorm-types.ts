import { sql, type Kysely } from 'kysely';
import { columnSql, columnType, uniqueConstraintName } from './gorm-ddl.js';
import type { ColumnDefinition, TableDefinition } from './table-schema.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

interface ColumnRow {
  table_name: string;
  column_name: string;
  column_type: string;
  is_nullable: string;
}

interface IndexRow {
  table_name: string;
  index_name: string;
  non_unique: number | string;
}

/** information_schema's column_type, without the display width older servers show (bigint(20)). */
const normalType = (type: string): string =>
  type.toLowerCase().replace(/^(bigint|int|smallint|mediumint)\(\d+\)/, '$1');

/** The column_type MySQL reports for GORM's type of the column. */
const expectedType = (column: ColumnDefinition): string => {
  const type = columnType(column.type, 'mysql');
  return type === 'boolean' ? 'tinyint(1)' : type;
};

/** A row that the new type could not hold: MODIFY would fail on it (strict mode) or cut it. */
const misfitCondition = (column: ColumnDefinition, name: string) => {
  const type = expectedType(column);
  const varchar = /^(?:var)?char\((\d+)\)$/.exec(type);
  if (varchar) return sql`CHAR_LENGTH(${sql.ref(name)}) > ${Number(varchar[1])}`;
  if (type === 'text') return sql`LENGTH(${sql.ref(name)}) > 65535`;
  if (type.endsWith('unsigned')) return sql`${sql.ref(name)} < 0`;
  return undefined;
};

const fits = async (db: AnyDb, table: string, column: ColumnDefinition): Promise<boolean> => {
  const condition = misfitCondition(column, column.name);
  if (!condition) return true;
  const { rows } = await sql`SELECT 1 AS misfit FROM ${sql.table(table)} WHERE ${condition} LIMIT 1`.execute(
    db,
  );
  return rows.length === 0;
};

/** The MODIFY clauses of the columns whose type (or NOT NULL) differs from GORM's and whose rows fit it. */
const columnChanges = async (
  db: AnyDb,
  table: TableDefinition,
  present: readonly ColumnRow[],
): Promise<string[]> => {
  const primary = new Set(table.primaryKey ?? []);
  const changes: string[] = [];
  for (const column of table.columns) {
    const row = present.find((candidate) => candidate.column_name === column.name);
    if (!row || column.type.kind === 'id' || primary.has(column.name)) continue;
    const sameType = normalType(row.column_type) === expectedType(column);
    const sameNull = (row.is_nullable === 'NO') === Boolean(column.notNull);
    if (sameType && sameNull) continue;
    if (await fits(db, table.name, column)) changes.push(`MODIFY COLUMN ${columnSql(column, 'mysql')}`);
  }
  return changes;
};

/** A unique index where GORM has a plain one under the same name, and GORM's `uni_` constraints. */
const indexChanges = (table: TableDefinition, indexes: readonly IndexRow[]): string[] => {
  const changes: string[] = [];
  const named = (name: string) => indexes.find((row) => row.index_name === name);
  for (const column of table.uniqueColumns ?? []) {
    const name = uniqueConstraintName(table.name, column);
    if (!named(name)) changes.push(`ADD CONSTRAINT \`${name}\` UNIQUE (\`${column}\`)`);
  }
  for (const definition of table.indexes) {
    const row = named(definition.name);
    if (!row || (Number(row.non_unique) === 0) === Boolean(definition.unique)) continue;
    const columns = definition.columns.map((column) => `\`${column}\``).join(',');
    changes.push(
      `DROP INDEX \`${definition.name}\``,
      `ADD ${definition.unique ? 'UNIQUE ' : ''}INDEX \`${definition.name}\` (${columns})`,
    );
  }
  return changes;
};

/**
 * Migration 0005 on MySQL: one-api's tables as an older Sluice created them (varchar(1024) for
 * tokens.subnet and channels.base_url, longtext where one-api says `type:text`, a signed weight, a
 * unique idx_users_username without GORM's uni_users_username) get GORM's types and index kinds,
 * so that one-api started on the database has nothing to alter. Only a column whose type differs
 * is altered (one ALTER per table, none on a table that matches), and only when every row fits the
 * new type; a column with a longer value keeps its type (one-api reads it as it is).
 */
export const alignMysqlTables = async (db: AnyDb, tables: readonly TableDefinition[]): Promise<void> => {
  const { rows: columns } = await sql<ColumnRow>`
    SELECT table_name AS table_name, column_name AS column_name, column_type AS column_type,
      is_nullable AS is_nullable
    FROM information_schema.columns WHERE table_schema = DATABASE()`.execute(db);
  const { rows: indexes } = await sql<IndexRow>`
    SELECT DISTINCT table_name AS table_name, index_name AS index_name, non_unique AS non_unique
    FROM information_schema.statistics WHERE table_schema = DATABASE()`.execute(db);
  for (const table of tables) {
    const present = columns.filter((row) => row.table_name === table.name);
    if (present.length === 0) continue;
    const changes = [
      ...(await columnChanges(db, table, present)),
      ...indexChanges(
        table,
        indexes.filter((row) => row.table_name === table.name),
      ),
    ];
    if (changes.length > 0) await sql.raw(`ALTER TABLE \`${table.name}\` ${changes.join(', ')}`).execute(db);
  }
};
