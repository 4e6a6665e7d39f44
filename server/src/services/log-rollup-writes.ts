import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { bucketOf } from '../db/day-bucket.js';
import type { Dialect } from '../db/dsn.js';
import {
  CUBES,
  DIMENSIONS,
  LOG_HOURS_TABLE,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
  SPANS,
  HOUR,
  withRollups,
  type CubeDefinition,
  type CubeName,
  type CubeTable,
  type RollupTables,
} from '../db/log-rollup-tables.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';

/** The columns of a log row the roll-ups are made of. */
export const FACT_COLUMNS = [
  'id',
  'created_at',
  'type',
  ...DIMENSIONS,
  'quota',
  'prompt_tokens',
  'completion_tokens',
] as const;

export interface LogFact {
  readonly id: unknown;
  readonly created_at: unknown;
  readonly type: unknown;
  readonly user_id: unknown;
  readonly username: string | null;
  readonly token_name: string | null;
  readonly channel_id: unknown;
  readonly model_name: string | null;
  readonly client_format: string | null;
  readonly quota: unknown;
  readonly prompt_tokens: unknown;
  readonly completion_tokens: unknown;
}

/** Rows per multi-row statement (12 parameters each: well under every driver's limit). */
const ROWS_PER_STATEMENT = 400;
/** Keys per DELETE of emptied cube rows. */
const KEYS_PER_DELETE = 100;

type CubeKeyColumn = CubeDefinition['key'][number];

/** The cube row a log row falls in: the cube's dimensions from the row, the others '' or 0. */
const cubeRow = (cube: CubeDefinition, fact: LogFact, span: number): CubeTable => {
  const has = (dimension: (typeof cube.dimensions)[number]) => cube.dimensions.includes(dimension);
  return {
    span,
    bucket: bucketOf(sqlNumber(fact.created_at), 0, span),
    user_id: has('user_id') ? sqlNumber(fact.user_id) : 0,
    username: has('username') ? (fact.username ?? '') : '',
    token_name: has('token_name') ? (fact.token_name ?? '') : '',
    channel_id: has('channel_id') ? sqlNumber(fact.channel_id) : 0,
    model_name: has('model_name') ? (fact.model_name ?? '') : '',
    client_format: has('client_format') ? (fact.client_format ?? '') : '',
    requests: 0,
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
  };
};

const keyOf = (cube: CubeDefinition, row: CubeTable): string =>
  JSON.stringify(cube.key.map((column: CubeKeyColumn) => row[column]));

/** What a set of log rows adds to (sign 1) or takes from (sign -1) each cube, per cube row. */
export const cubeDeltas = (facts: readonly LogFact[], sign: 1 | -1): Map<CubeDefinition, CubeTable[]> => {
  const deltas = new Map<CubeDefinition, CubeTable[]>();
  for (const cube of CUBES) {
    const rows = new Map<string, CubeTable>();
    for (const fact of facts) {
      if (sqlNumber(fact.type) !== LOG_TYPE.consume) continue;
      for (const span of SPANS) {
        const fresh = cubeRow(cube, fact, span);
        const key = keyOf(cube, fresh);
        const row = rows.get(key) ?? fresh;
        row.requests += sign;
        row.quota += sign * sqlNumber(fact.quota);
        row.prompt_tokens += sign * sqlNumber(fact.prompt_tokens);
        row.completion_tokens += sign * sqlNumber(fact.completion_tokens);
        rows.set(key, row);
      }
    }
    deltas.set(cube, [...rows.values()]);
  }
  return deltas;
};

const SUMS = ['requests', 'quota', 'prompt_tokens', 'completion_tokens'] as const;

/** `row = row + delta` for each sum, in the dialect's upsert. */
const upsertCube = async (
  db: Kysely<RollupTables>,
  dialect: Dialect,
  table: CubeName,
  key: readonly string[],
  rows: CubeTable[],
) => {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const insert = db.insertInto(table).values(rows.slice(start, start + ROWS_PER_STATEMENT));
    if (dialect === 'mysql')
      await insert
        .onDuplicateKeyUpdate(
          Object.fromEntries(SUMS.map((sum) => [sum, sql`${sql.ref(sum)} + VALUES(${sql.ref(sum)})`])),
        )
        .execute();
    else
      await insert
        .onConflict((conflict) =>
          conflict
            .columns(key as (keyof CubeTable)[])
            .doUpdateSet(
              Object.fromEntries(
                SUMS.map((sum) => [sum, sql`${sql.ref(`${table}.${sum}`)} + ${sql.ref(`excluded.${sum}`)}`]),
              ),
            ),
        )
        .execute();
  }
};

/** Deletes the cube rows a cleanup emptied (no request left in them), by their keys. */
const deleteEmptied = async (db: Kysely<RollupTables>, cube: CubeDefinition, rows: CubeTable[]) => {
  for (let start = 0; start < rows.length; start += KEYS_PER_DELETE) {
    const chunk = rows.slice(start, start + KEYS_PER_DELETE);
    await db
      .deleteFrom(cube.name)
      .where('requests', '=', 0)
      .where((eb) =>
        eb.or(
          chunk.map((row): Expression<SqlBool> =>
            eb.and(cube.key.map((column) => eb(column, '=', row[column]))),
          ),
        ),
      )
      .execute();
  }
};

/**
 * Adds log rows to the cubes (sign 1), or takes rows being deleted out of them (sign -1, then drops
 * the cube rows left with no request). Run inside the transaction that moves the watermark, or that
 * deletes the rows.
 */
export const applyToCubes = async (
  trx: Kysely<Tables>,
  dialect: Dialect,
  facts: readonly LogFact[],
  sign: 1 | -1,
): Promise<void> => {
  const db = withRollups(trx);
  for (const [cube, rows] of cubeDeltas(facts, sign)) {
    await upsertCube(db, dialect, cube.name, cube.key, rows);
    if (sign < 0) await deleteEmptied(db, cube, rows);
  }
};

/** Widens each hour's id range to the rows given (every type: the lists use them). */
export const applyToHours = async (trx: Kysely<Tables>, dialect: Dialect, facts: readonly LogFact[]) => {
  const hours = new Map<number, { hour: number; min_id: number; max_id: number }>();
  for (const fact of facts) {
    const hour = bucketOf(sqlNumber(fact.created_at), 0, HOUR);
    const id = sqlNumber(fact.id);
    const seen = hours.get(hour);
    if (seen) {
      seen.min_id = Math.min(seen.min_id, id);
      seen.max_id = Math.max(seen.max_id, id);
    } else hours.set(hour, { hour, min_id: id, max_id: id });
  }
  const rows = [...hours.values()];
  const db = withRollups(trx);
  const lowest = dialect === 'sqlite' ? 'MIN' : 'LEAST';
  const highest = dialect === 'sqlite' ? 'MAX' : 'GREATEST';
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const insert = db.insertInto(LOG_HOURS_TABLE).values(rows.slice(start, start + ROWS_PER_STATEMENT));
    if (dialect === 'mysql')
      await insert
        .onDuplicateKeyUpdate({
          min_id: sql`LEAST(min_id, VALUES(min_id))`,
          max_id: sql`GREATEST(max_id, VALUES(max_id))`,
        })
        .execute();
    else
      await insert
        .onConflict((conflict) =>
          conflict.column('hour').doUpdateSet({
            min_id: sql`${sql.raw(lowest)}(${sql.ref(`${LOG_HOURS_TABLE}.min_id`)}, ${sql.ref('excluded.min_id')})`,
            max_id: sql`${sql.raw(highest)}(${sql.ref(`${LOG_HOURS_TABLE}.max_id`)}, ${sql.ref('excluded.max_id')})`,
          }),
        )
        .execute();
  }
};

/** The watermark as this statement sees it (0 if the state row is missing). */
export const readWatermark = async (db: Kysely<Tables>): Promise<number> => {
  const row = await withRollups(db)
    .selectFrom(ROLLUP_STATE_TABLE)
    .select('last_id')
    .where('name', '=', ROLLUP_STATE_NAME)
    .executeTakeFirst();
  return sqlNumber(row?.last_id);
};

/**
 * The watermark, its row locked until the transaction ends (PostgreSQL, MySQL): the roll-up job and
 * the cleanup's batches take turns. On SQLite the transaction is the lock (one writer).
 */
export const lockWatermark = async (trx: Kysely<Tables>, dialect: Dialect): Promise<number> => {
  if (dialect === 'sqlite') return readWatermark(trx);
  const row = await withRollups(trx)
    .selectFrom(ROLLUP_STATE_TABLE)
    .select('last_id')
    .where('name', '=', ROLLUP_STATE_NAME)
    .forUpdate()
    .executeTakeFirst();
  return sqlNumber(row?.last_id);
};

/** Moves the watermark from `from` to `to` if it is still at `from` (else another instance moved it). */
export const advanceWatermark = async (
  trx: Kysely<Tables>,
  from: number,
  to: number,
  now: number,
): Promise<boolean> => {
  const result = await withRollups(trx)
    .updateTable(ROLLUP_STATE_TABLE)
    .set({ last_id: to, updated_at: now })
    .where('name', '=', ROLLUP_STATE_NAME)
    .where('last_id', '=', from)
    .executeTakeFirst();
  return sqlNumber(result.numUpdatedRows) > 0;
};
