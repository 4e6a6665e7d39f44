import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Dialect } from '../db/dsn.js';
import { bucketOf } from '../db/day-bucket.js';
import {
  CUBES,
  DIMENSIONS,
  type CubeDefinition,
  type CubeTable,
  type RollupTables,
} from '../db/log-rollup-tables.js';

/** The sums a cube row keeps, in the order of the upserts' columns. */
export const SUMS = ['requests', 'quota', 'prompt_tokens', 'completion_tokens'] as const;

const COLUMNS = ['span', 'bucket', ...DIMENSIONS, ...SUMS] as const;

/**
 * Rows per upsert statement: a fold is written in chunks of these sizes (largest first), so that only
 * this many statement texts per cube are ever compiled and kept prepared.
 */
const UPSERT_SIZES = [256, 64, 16, 4, 1] as const;

/** One group of log rows at the finest grain (a quarter hour, every dimension), its sums signed. */
export type FinestRow = Omit<CubeTable, 'span'>;

/**
 * The finest groups summed into each cube at each of its spans: an hour's or a day's bucket is the
 * one that holds the quarter (quarters tile hours, hours tile days), a dimension the cube is not
 * keyed by holds '' or 0. Answers the rows per cube and span, keyed by their primary key.
 */
export const cubeRowsOf = (finest: readonly FinestRow[], cube: CubeDefinition, span: number): CubeTable[] => {
  const keyed = cube.dimensions;
  const has = (dimension: (typeof DIMENSIONS)[number]) => keyed.includes(dimension);
  const [user, name, token, channel, model, format] = DIMENSIONS.map<boolean>(has);
  const rows = new Map<string, CubeTable>();
  for (const group of finest) {
    const row: CubeTable = {
      span,
      bucket: bucketOf(group.bucket, 0, span),
      user_id: user ? group.user_id : 0,
      username: name ? group.username : '',
      token_name: token ? group.token_name : '',
      channel_id: channel ? group.channel_id : 0,
      model_name: model ? group.model_name : '',
      client_format: format ? group.client_format : '',
      requests: group.requests,
      quota: group.quota,
      prompt_tokens: group.prompt_tokens,
      completion_tokens: group.completion_tokens,
    };
    const key = `${row.bucket}\u0000${row.user_id}\u0000${row.username}\u0000${row.token_name}\u0000${row.channel_id}\u0000${row.model_name}\u0000${row.client_format}`;
    const existing = rows.get(key);
    if (existing === undefined) rows.set(key, row);
    else {
      existing.requests += row.requests;
      existing.quota += row.quota;
      existing.prompt_tokens += row.prompt_tokens;
      existing.completion_tokens += row.completion_tokens;
    }
  }
  return [...rows.values()];
};

/** The upsert texts already compiled, per dialect (keyed by its adapter), by cube and row count. */
const upsertTexts = new WeakMap<object, Map<string, string>>();

const upsertQuery = (db: Kysely<RollupTables>, dialect: Dialect, cube: CubeDefinition, rows: CubeTable[]) => {
  const insert = db.insertInto(cube.name).values(rows);
  if (dialect === 'mysql')
    return insert.onDuplicateKeyUpdate(
      Object.fromEntries(SUMS.map((sum) => [sum, sql`${sql.ref(sum)} + VALUES(${sql.ref(sum)})`])),
    );
  return insert.onConflict((conflict) =>
    conflict
      .columns(cube.key)
      .doUpdateSet(
        Object.fromEntries(
          SUMS.map((sum) => [sum, sql`${sql.ref(`${cube.name}.${sum}`)} + ${sql.ref(`excluded.${sum}`)}`]),
        ),
      ),
  );
};

/**
 * Adds rows to a cube: `sum = sum + new` on the rows that exist, new rows inserted, by the dialect's
 * upsert. Each statement's text is compiled by Kysely once per cube and row count and then reused
 * with the rows' values (every row has COLUMNS in that order, none undefined).
 */
export const upsertCubeRows = async (
  db: Kysely<RollupTables>,
  dialect: Dialect,
  cube: CubeDefinition,
  rows: readonly CubeTable[],
): Promise<void> => {
  const adapter = db.getExecutor().adapter;
  let texts = upsertTexts.get(adapter);
  if (!texts) {
    texts = new Map();
    upsertTexts.set(adapter, texts);
  }
  let start = 0;
  for (const size of UPSERT_SIZES)
    for (; rows.length - start >= size; start += size) {
      const chunk = rows.slice(start, start + size).map((row) => {
        const ordered = {} as Record<(typeof COLUMNS)[number], number | string>;
        for (const column of COLUMNS) ordered[column] = row[column];
        return ordered as unknown as CubeTable;
      });
      const key = `${cube.name} ${size}`;
      const text = texts.get(key);
      if (text === undefined) {
        const compiled = upsertQuery(db, dialect, cube, chunk).compile();
        texts.set(key, compiled.sql);
        await db.executeQuery(compiled);
        continue;
      }
      const parameters: unknown[] = [];
      for (const row of chunk) for (const column of COLUMNS) parameters.push(row[column]);
      await db.executeQuery(CompiledQuery.raw(text, parameters));
    }
};

/** Every cube at every span. */
export const CUBE_SPANS: readonly { readonly cube: CubeDefinition; readonly span: number }[] = CUBES.flatMap(
  (cube) => cube.spans.map((span) => ({ cube, span })),
);
