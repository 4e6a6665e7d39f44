import type { Dialect } from '../dsn.js';
import type { ColumnDefinition, ColumnKind, TableDefinition } from './table-schema.js';

/**
 * The DDL GORM (v1.25, one-api's ORM) writes for a table, statement for statement: its types, its
 * quoting, its defaults (double-quoted strings on SQLite, where its migrator reads them back), its
 * index and unique-constraint names. A table Sluice creates this way is one that one-api's
 * AutoMigrate reads back as its own and leaves alone.
 */
type FixedKind = Exclude<ColumnKind['kind'], 'varchar' | 'char'>;

const TYPES: Record<Dialect, Record<FixedKind, string>> = {
  mysql: {
    id: 'bigint AUTO_INCREMENT',
    int: 'bigint',
    bigint: 'bigint',
    uint: 'bigint unsigned',
    bool: 'boolean',
    float: 'double',
    text: 'longtext',
    shortText: 'text',
    indexedString: 'varchar(191)',
  },
  postgres: {
    id: 'bigserial',
    int: 'bigint',
    bigint: 'bigint',
    uint: 'bigint',
    bool: 'boolean',
    float: 'decimal',
    text: 'text',
    shortText: 'text',
    indexedString: 'text',
  },
  sqlite: {
    id: 'integer PRIMARY KEY AUTOINCREMENT',
    int: 'integer',
    bigint: 'integer',
    uint: 'integer',
    bool: 'numeric',
    float: 'real',
    text: 'text',
    shortText: 'text',
    indexedString: 'text',
  },
};

/** The column type GORM gives the kind on the dialect. */
export const columnType = (type: ColumnKind, dialect: Dialect): string =>
  type.kind === 'varchar' || type.kind === 'char'
    ? `${type.kind}(${type.length})`
    : TYPES[dialect][type.kind];

const quote = (name: string, dialect: Dialect): string =>
  dialect === 'postgres' ? `"${name.replaceAll('"', '""')}"` : `\`${name.replaceAll('`', '``')}\``;

const quoteAll = (names: readonly string[], dialect: Dialect): string =>
  names.map((name) => quote(name, dialect)).join(',');

const literal = (value: string | number | boolean, dialect: Dialect): string => {
  if (typeof value !== 'string') return String(value);
  return dialect === 'sqlite' ? `"${value.replaceAll('"', '""')}"` : `'${value.replaceAll("'", "''")}'`;
};

/** `name type [NOT NULL] [DEFAULT value]`, as GORM's FullDataTypeOf writes it. */
export const columnSql = (column: ColumnDefinition, dialect: Dialect): string =>
  `${quote(column.name, dialect)} ${columnType(column.type, dialect)}` +
  (column.notNull ? ' NOT NULL' : '') +
  (column.defaultValue === undefined ? '' : ` DEFAULT ${literal(column.defaultValue, dialect)}`);

/** GORM's name for the constraint of a column with the `unique` tag. */
export const uniqueConstraintName = (table: string, column: string): string => `uni_${table}_${column}`;

const primaryKeyOf = (table: TableDefinition, dialect: Dialect): readonly string[] => {
  if (table.primaryKey) return table.primaryKey;
  // SQLite's id carries PRIMARY KEY in its type.
  return dialect !== 'sqlite' && table.columns.some((column) => column.type.kind === 'id') ? ['id'] : [];
};

/**
 * CREATE TABLE and its indexes: on MySQL the indexes inside the statement (as GORM writes them, and
 * one statement cannot leave a table without them), elsewhere one CREATE INDEX each after it.
 */
export const createTableStatements = (table: TableDefinition, dialect: Dialect): string[] => {
  const parts = table.columns.map((column) => columnSql(column, dialect));
  const primaryKey = primaryKeyOf(table, dialect);
  if (primaryKey.length > 0) parts.push(`PRIMARY KEY (${quoteAll(primaryKey, dialect)})`);
  const indexSql = (definition: TableDefinition['indexes'][number]) =>
    `${definition.unique ? 'UNIQUE ' : ''}INDEX ${quote(definition.name, dialect)}`;
  if (dialect === 'mysql')
    for (const definition of table.indexes)
      parts.push(`${indexSql(definition)} (${quoteAll(definition.columns, dialect)})`);
  for (const column of table.uniqueColumns ?? [])
    parts.push(
      `CONSTRAINT ${quote(uniqueConstraintName(table.name, column), dialect)} UNIQUE (${quote(column, dialect)})`,
    );
  const options = dialect === 'mysql' ? ' DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin' : '';
  const create = `CREATE TABLE ${quote(table.name, dialect)} (${parts.join(',')})${options}`;
  if (dialect === 'mysql') return [create];
  return [
    create,
    ...table.indexes.map(
      (definition) =>
        `CREATE ${indexSql(definition)} ON ${quote(table.name, dialect)}(${quoteAll(definition.columns, dialect)})`,
    ),
  ];
};

/** GORM's AddColumn: `ALTER TABLE t ADD c type …` (nullable or defaulted: no row is rewritten). */
export const addColumnStatement = (table: string, column: ColumnDefinition, dialect: Dialect): string =>
  `ALTER TABLE ${quote(table, dialect)} ADD ${columnSql(column, dialect)}`;
