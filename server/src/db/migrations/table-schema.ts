/**
 * How a table is described: columns by the kind GORM (one-api's ORM) would give their Go field, so
 * that each dialect's DDL is the one GORM's AutoMigrate writes and accepts (see gorm-ddl.ts).
 */
export type ColumnKind =
  /** An `Id int` primary key: auto-increment (bigint, bigserial, integer). */
  | { kind: 'id' }
  /** A Go int or int64 (gorm's `type:int` too): bigint, integer on SQLite. */
  | { kind: 'int' }
  | { kind: 'bigint' }
  /** A Go uint: bigint unsigned on MySQL. */
  | { kind: 'uint' }
  | { kind: 'bool' }
  /** A Go float64: double, decimal on PostgreSQL, real on SQLite. */
  | { kind: 'float' }
  /** A Go string of any length: longtext on MySQL, text elsewhere. */
  | { kind: 'text' }
  /** gorm's `type:text`: text everywhere (64 KiB on MySQL). */
  | { kind: 'shortText' }
  /**
   * A Go string with an index, a default or in the primary key: varchar(191) on MySQL (an index
   * on a MySQL TEXT column needs a prefix length), text elsewhere.
   */
  | { kind: 'indexedString' }
  | { kind: 'varchar'; length: number }
  | { kind: 'char'; length: number };

export interface ColumnDefinition {
  readonly name: string;
  readonly type: ColumnKind;
  readonly notNull?: boolean;
  readonly defaultValue?: string | number | boolean;
}

export interface IndexDefinition {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique?: boolean;
}

export interface TableDefinition {
  readonly name: string;
  readonly columns: readonly ColumnDefinition[];
  /** Composite primary key; tables with an `id` column use it instead. */
  readonly primaryKey?: readonly string[];
  readonly indexes: readonly IndexDefinition[];
  /** Columns with gorm's `unique` tag: a constraint named `uni_<table>_<column>`, as GORM names it. */
  readonly uniqueColumns?: readonly string[];
}

const withDefault = (
  name: string,
  type: ColumnKind,
  defaultValue: string | number | boolean | undefined,
): ColumnDefinition => ({ name, type, ...(defaultValue === undefined ? {} : { defaultValue }) });

export const id: ColumnDefinition = { name: 'id', type: { kind: 'id' } };
export const int = (name: string, defaultValue?: number): ColumnDefinition =>
  withDefault(name, { kind: 'int' }, defaultValue);
export const bigint = (name: string, defaultValue?: number): ColumnDefinition =>
  withDefault(name, { kind: 'bigint' }, defaultValue);
export const bool = (name: string, defaultValue = false): ColumnDefinition =>
  withDefault(name, { kind: 'bool' }, defaultValue);
export const text = (name: string): ColumnDefinition => ({ name, type: { kind: 'text' } });
export const shortText = (name: string): ColumnDefinition => ({ name, type: { kind: 'shortText' } });
export const indexedString = (name: string, defaultValue?: string): ColumnDefinition =>
  withDefault(name, { kind: 'indexedString' }, defaultValue);
export const varchar = (name: string, length: number, defaultValue?: string): ColumnDefinition =>
  withDefault(name, { kind: 'varchar', length }, defaultValue);
export const char = (name: string, length: number): ColumnDefinition => ({
  name,
  type: { kind: 'char', length },
});
export const index = (table: string, ...columns: string[]): IndexDefinition => ({
  name: `idx_${table}_${columns.join('_')}`,
  columns,
});
export const unique = (table: string, column: string): IndexDefinition => ({
  name: `idx_${table}_${column}`,
  columns: [column],
  unique: true,
});
