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
  column_default: string | null;
}

interface IndexRow {
  table_name: string;
  index_name: string;
  non_unique: number | string;
  column_name: string;
}

/** A table's indexes by name: their columns in order, and whether unique. */
type PresentIndexes = Map<string, { columns: string[]; unique: boolean }>;

const indexesOf = (rows: readonly IndexRow[], table: string): PresentIndexes => {
  const indexes: PresentIndexes = new Map();
  for (const row of rows.filter((candidate) => candidate.table_name === table)) {
    const index = indexes.get(row.index_name) ?? { columns: [], unique: Number(row.non_unique) === 0 };
    index.columns.push(row.column_name);
    indexes.set(row.index_name, index);
  }
  return indexes;
};

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

/**
 * The MODIFY clauses of the columns whose type, NOT NULL or having a default (abilities.enabled has
 * none in GORM's) differs from GORM's, and whose rows fit the type.
 */
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
    // MariaDB reports no default as the text NULL.
    const hasDefault = row.column_default !== null && row.column_default !== 'NULL';
    const sameDefault = hasDefault === (column.defaultValue !== undefined);
    if (sameType && sameNull && sameDefault) continue;
    if (await fits(db, table.name, column)) changes.push(`MODIFY COLUMN ${columnSql(column, 'mysql')}`);
  }
  return changes;
};

const columnList = (columns: readonly string[]) => columns.map((column) => `\`${column}\``).join(',');

/**
 * GORM's `uni_` constraints; an index of GORM's missing by name (renamed from an older Sluice's
 * name for the same columns, else added: one-api's tables but logs are small); a unique index where
 * GORM has a plain one under the same name (or the reverse).
 */
const indexChanges = (table: TableDefinition, present: PresentIndexes): string[] => {
  const changes: string[] = [];
  for (const column of table.uniqueColumns ?? []) {
    const name = uniqueConstraintName(table.name, column);
    if (!present.has(name)) changes.push(`ADD CONSTRAINT \`${name}\` UNIQUE (\`${column}\`)`);
  }
  const defined = new Set(table.indexes.map((definition) => definition.name));
  for (const definition of table.indexes) {
    const unique = Boolean(definition.unique);
    const kind = `${unique ? 'UNIQUE ' : ''}INDEX \`${definition.name}\` (${columnList(definition.columns)})`;
    const row = present.get(definition.name);
    if (!row) {
      const older = [...present].find(
        ([name, index]) =>
          !defined.has(name) &&
          index.unique === unique &&
          JSON.stringify(index.columns) === JSON.stringify(definition.columns),
      );
      changes.push(older ? `RENAME INDEX \`${older[0]}\` TO \`${definition.name}\`` : `ADD ${kind}`);
    } else if (row.unique !== unique) changes.push(`DROP INDEX \`${definition.name}\``, `ADD ${kind}`);
  }
  return changes;
};

/**
 * Migration 0005 on MySQL: one-api's tables as an older Sluice created them (varchar(1024) for
 * tokens.subnet and channels.base_url, longtext where one-api says `type:text`, a signed weight, a
 * unique idx_users_username without GORM's uni_users_username, idx_users_github_id where GORM says
 * idx_users_git_hub_id) get GORM's types and index names,
 * so that one-api started on the database has nothing to alter. Only a column whose type differs
 * is altered (one ALTER per table, none on a table that matches), and only when every row fits the
 * new type; a column with a longer value keeps its type (one-api reads it as it is).
 */
export const alignMysqlTables = async (db: AnyDb, tables: readonly TableDefinition[]): Promise<void> => {
  const { rows: columns } = await sql<ColumnRow>`
    SELECT table_name AS table_name, column_name AS column_name, column_type AS column_type,
      is_nullable AS is_nullable, column_default AS column_default
    FROM information_schema.columns WHERE table_schema = DATABASE()`.execute(db);
  const { rows: indexes } = await sql<IndexRow>`
    SELECT table_name AS table_name, index_name AS index_name, non_unique AS non_unique,
      column_name AS column_name
    FROM information_schema.statistics WHERE table_schema = DATABASE()
    ORDER BY table_name, index_name, seq_in_index`.execute(db);
  for (const table of tables) {
    const present = columns.filter((row) => row.table_name === table.name);
    if (present.length === 0) continue;
    const changes = [
      ...(await columnChanges(db, table, present)),
      ...indexChanges(table, indexesOf(indexes, table.name)),
    ];
    if (changes.length > 0) await sql.raw(`ALTER TABLE \`${table.name}\` ${changes.join(', ')}`).execute(db);
  }
};
