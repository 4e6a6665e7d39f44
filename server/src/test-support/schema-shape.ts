import type { Dialect } from '../db/dsn.js';
import { connectFixture, type FixtureConnection } from './fixture-connection.js';
import { ONE_API_TABLE_NAMES } from './one-api-gorm-ddl.js';
import type { TestDatabase } from './test-databases.js';

/** A column as the database reports it (information_schema, or SQLite's PRAGMA table_info). */
export interface ColumnShape {
  readonly type: string;
  readonly nullable: boolean;
  readonly default: string | null;
}

/** An index by its name: its columns in order (MySQL's prefix length as `col(n)`) and whether unique. */
export interface IndexShape {
  readonly columns: readonly string[];
  readonly unique: boolean;
}

export interface TableShape {
  readonly columns: Record<string, ColumnShape>;
  readonly indexes: Record<string, IndexShape>;
}

export type SchemaShape = Record<string, TableShape>;

const text = (value: unknown): string => (typeof value === 'string' ? value : String(value));

/** bigint(20) on older MySQL servers is bigint. */
const mysqlType = (type: string): string => type.replace(/^(bigint|int|smallint|mediumint)\(\d+\)/, '$1');

const emptyTable = (): { columns: Record<string, ColumnShape>; indexes: Record<string, IndexShape> } => ({
  columns: {},
  indexes: {},
});

type Reader = (connection: FixtureConnection, tables: readonly string[]) => Promise<SchemaShape>;

const addIndexColumn = (table: TableShape, name: string, column: string, unique: boolean) => {
  const existing = table.indexes[name];
  table.indexes[name] = { columns: [...(existing?.columns ?? []), column], unique };
};

const readMysql: Reader = async (connection, tables) => {
  const schema: Record<string, TableShape> = Object.fromEntries(tables.map((name) => [name, emptyTable()]));
  const columns = await connection.query(
    'SELECT table_name AS t, column_name AS c, column_type AS type, is_nullable AS n, column_default AS d, ' +
      'extra AS e FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY ordinal_position',
  );
  for (const row of columns) {
    const table = schema[text(row['t'])];
    const extra = text(row['e']).includes('auto_increment') ? ' auto_increment' : '';
    if (table)
      table.columns[text(row['c'])] = {
        type: mysqlType(text(row['type'])) + extra,
        nullable: row['n'] === 'YES',
        default: row['d'] === null ? null : text(row['d']),
      };
  }
  const indexes = await connection.query(
    'SELECT table_name AS t, index_name AS i, non_unique AS u, column_name AS c, sub_part AS p ' +
      'FROM information_schema.statistics WHERE table_schema = DATABASE() ORDER BY table_name, index_name, seq_in_index',
  );
  for (const row of indexes) {
    const table = schema[text(row['t'])];
    const column = text(row['c']) + (row['p'] === null ? '' : `(${text(row['p'])})`);
    if (table) addIndexColumn(table, text(row['i']), column, Number(row['u']) === 0);
  }
  return schema;
};

const readPostgres: Reader = async (connection, tables) => {
  const schema: Record<string, TableShape> = Object.fromEntries(tables.map((name) => [name, emptyTable()]));
  const columns = await connection.query(
    'SELECT table_name AS t, column_name AS c, data_type AS type, character_maximum_length AS l, ' +
      'is_nullable AS n, column_default AS d FROM information_schema.columns ' +
      'WHERE table_schema = current_schema() ORDER BY ordinal_position',
  );
  for (const row of columns) {
    const table = schema[text(row['t'])];
    if (table)
      table.columns[text(row['c'])] = {
        type: text(row['type']) + (row['l'] === null ? '' : `(${text(row['l'])})`),
        nullable: row['n'] === 'YES',
        default: row['d'] === null ? null : text(row['d']),
      };
  }
  const indexes = await connection.query(
    'SELECT t.relname AS t, i.relname AS i, ix.indisunique AS u, a.attname AS c FROM pg_index ix ' +
      'JOIN pg_class t ON t.oid = ix.indrelid JOIN pg_class i ON i.oid = ix.indexrelid ' +
      'JOIN pg_namespace ns ON ns.oid = t.relnamespace ' +
      'CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, n) ' +
      'JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ' +
      'WHERE ns.nspname = current_schema() ORDER BY t.relname, i.relname, k.n',
  );
  for (const row of indexes) {
    const table = schema[text(row['t'])];
    if (table) addIndexColumn(table, text(row['i']), text(row['c']), row['u'] === true);
  }
  return schema;
};

const readSqlite: Reader = async (connection, tables) => {
  const schema: Record<string, TableShape> = {};
  for (const name of tables) {
    const table = emptyTable();
    schema[name] = table;
    for (const row of await connection.query(`PRAGMA table_info(\`${name}\`)`))
      table.columns[text(row['name'])] = {
        type: text(row['type']),
        nullable: Number(row['notnull']) === 0,
        default: row['dflt_value'] === null ? null : text(row['dflt_value']),
      };
    for (const index of await connection.query(`PRAGMA index_list(\`${name}\`)`)) {
      const indexName = text(index['name']);
      for (const column of await connection.query(`PRAGMA index_info(\`${indexName}\`)`))
        addIndexColumn(table, indexName, text(column['name']), Number(index['unique']) === 1);
    }
  }
  return schema;
};

const READERS: Record<Dialect, Reader> = { mysql: readMysql, postgres: readPostgres, sqlite: readSqlite };

/** The columns and indexes of the tables, as the dialect's catalogue reports them. */
export const readSchema = (
  connection: FixtureConnection,
  dialect: Dialect,
  tables: readonly string[],
): Promise<SchemaShape> => READERS[dialect](connection, tables);

const MYSQL_TEXT_TYPES = /^(tiny|medium|long)?(text|blob)$/;

/**
 * What one-api's AutoMigrate would change on `actual` to make it `expected` (a database GORM made
 * for one-api's models), judged strictly: a column missing (ADD), of another type, NOT NULL, or
 * default (ALTER), an index missing by name or different (CREATE), and on MySQL an index over a
 * TEXT/BLOB column without a prefix length, which no ALTER or CREATE INDEX on it survives. GORM
 * v1.25 is laxer on defaults and types; a schema with no change here is one it leaves as it is.
 * Columns and indexes `actual` has beyond `expected` are left alone by GORM, and here.
 */
export const autoMigrateChanges = (
  expected: SchemaShape,
  actual: SchemaShape,
  dialect: Dialect,
): string[] => {
  const changes: string[] = [];
  for (const [name, table] of Object.entries(expected)) {
    const present = actual[name];
    if (!present) {
      changes.push(`CREATE TABLE ${name}`);
      continue;
    }
    for (const [column, want] of Object.entries(table.columns)) {
      const have = present.columns[column];
      if (!have) changes.push(`ADD ${name}.${column} ${want.type}`);
      else if (have.type !== want.type)
        changes.push(`ALTER ${name}.${column} type ${have.type} → ${want.type}`);
      else if (have.nullable && !want.nullable) changes.push(`ALTER ${name}.${column} NOT NULL`);
      else if (have.default !== want.default)
        changes.push(`ALTER ${name}.${column} default ${have.default} → ${want.default}`);
    }
    for (const [index, want] of Object.entries(table.indexes)) {
      const have = present.indexes[index];
      if (!have) changes.push(`CREATE INDEX ${index} ON ${name}(${want.columns.join(',')})`);
      else if (JSON.stringify(have) !== JSON.stringify(want)) changes.push(`INDEX ${index} differs`);
    }
    if (dialect !== 'mysql') continue;
    for (const [index, have] of Object.entries(present.indexes))
      for (const column of have.columns)
        if (MYSQL_TEXT_TYPES.test(present.columns[column]?.type ?? ''))
          changes.push(`INDEX ${index} over the TEXT column ${name}.${column}`);
  }
  return changes;
};

/** one-api's tables in the database, read on a connection of their own. */
export const readOneApiSchema = async (database: TestDatabase): Promise<SchemaShape> => {
  const connection = await connectFixture(database);
  try {
    return await readSchema(connection, database.dialect, ONE_API_TABLE_NAMES);
  } finally {
    await connection.close();
  }
};
