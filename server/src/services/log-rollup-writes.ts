import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { bucketStart } from '../db/day-bucket.js';
import type { Dialect } from '../db/dsn.js';
import {
  DIMENSIONS,
  LOG_HOURS_TABLE,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
  HOUR,
  withRollups,
  type CubeDefinition,
  type Dimension,
  type RollupTables,
} from '../db/log-rollup-tables.js';
import { sqlNumber } from '../db/sql-number.js';
import { templated } from '../db/query-template.js';
import type { Tables } from '../db/tables.js';
import { CUBE_SPANS, cubeRowsOf, SUMS, upsertCubeRows, type FinestRow } from './cube-upserts.js';

/** The log rows a fold covers: ids in `(after, through]`, and created before `before` if set. */
export interface FactRange {
  readonly after: number;
  readonly through: number;
  readonly before?: number;
}

const DEFAULTS: Record<Dimension, RawBuilder<unknown>> = {
  user_id: sql`0`,
  username: sql`''`,
  token_name: sql`''`,
  channel_id: sql`0`,
  model_name: sql`''`,
  client_format: sql`''`,
};

/** A dimension of a log row as the cubes keep it: NULL as '' or 0. */
const dimensionOf = (dimension: Dimension): RawBuilder<unknown> =>
  sql`COALESCE(${sql.ref(`logs.${dimension}`)}, ${DEFAULTS[dimension]})`;

const rangeRows = (db: Kysely<RollupTables>, range: FactRange, consumeOnly: boolean) => {
  let query = db.selectFrom('logs').where('logs.id', '>', range.after).where('logs.id', '<=', range.through);
  if (range.before !== undefined) query = query.where('logs.created_at', '<', range.before);
  return consumeOnly ? query.where('logs.type', '=', LOG_TYPE.consume) : query;
};

/** A range as the values of a templated query (query-template.ts), and back. */
const rangeValues = (range: FactRange): number[] =>
  range.before === undefined ? [range.after, range.through] : [range.after, range.through, range.before];
const rangeFrom = ([after = 0, through = 0, before]: readonly number[]): FactRange =>
  before === undefined ? { after, through } : { after, through, before };

/** The finest bucket any cube keeps (every wider one is a whole number of it). */
const FINEST_SPAN = Math.min(...CUBE_SPANS.map(({ span }) => span));

/**
 * The range's consumption rows grouped in SQL at the finest grain (the quarter hour, every
 * dimension), their sums signed: one scan of the range, whatever the number of cubes. Under load a
 * second's rows collapse into a few groups; a backfill's chunk into at most as many groups as it
 * has rows.
 */
const finestGroups = async (
  db: Kysely<RollupTables>,
  range: FactRange,
  sign: 1 | -1,
): Promise<FinestRow[]> => {
  const shape = range.before === undefined ? 'open' : 'before';
  const { rows } = await db.executeQuery<Record<string, unknown>>(
    templated(
      db,
      `rollup finest ${shape}`,
      (...values: number[]) =>
        rangeRows(db, rangeFrom(values), true)
          .select([
            bucketStart('logs.created_at', 0, FINEST_SPAN).as('bucket'),
            ...DIMENSIONS.map((dimension) => dimensionOf(dimension).as(dimension)),
            sql<number>`COUNT(*)`.as('requests'),
            ...SUMS_OF_LOGS.map((sum) => sql<number>`SUM(${sql.ref(`logs.${sum}`)})`.as(sum)),
          ])
          // Positions: 1 is the bucket, 2… the dimensions in DIMENSIONS' order.
          .groupBy([sql`1`, ...DIMENSIONS.map((_, index) => sql`${sql.lit(index + 2)}`)]),
      rangeValues(range),
    ),
  );
  return rows.map((row) => ({
    bucket: sqlNumber(row.bucket),
    user_id: sqlNumber(row.user_id),
    username: String(row.username),
    token_name: String(row.token_name),
    channel_id: sqlNumber(row.channel_id),
    model_name: String(row.model_name),
    client_format: String(row.client_format),
    requests: sign * sqlNumber(row.requests),
    quota: sign * sqlNumber(row.quota),
    prompt_tokens: sign * sqlNumber(row.prompt_tokens),
    completion_tokens: sign * sqlNumber(row.completion_tokens),
  }));
};

const SUMS_OF_LOGS = ['quota', 'prompt_tokens', 'completion_tokens'] as const;

/**
 * One cube at one span: the range's consumption rows grouped in SQL by the cube's key, added to (sign
 * 1) or taken from (sign -1) its rows by the dialect's upsert. Nothing travels to this process.
 */
const foldCube = async (
  db: Kysely<RollupTables>,
  dialect: Dialect,
  cube: CubeDefinition,
  span: number,
  range: FactRange,
  sign: 1 | -1,
): Promise<void> => {
  const signed = (sum: string) => sql`${sql.lit(sign)} * COALESCE(SUM(${sql.ref(`logs.${sum}`)}), 0)`;
  const grouped = rangeRows(db, range, true)
    .select([
      sql`${sql.lit(span)}`.as('span'),
      bucketStart('logs.created_at', 0, span).as('bucket'),
      ...DIMENSIONS.map((dimension) =>
        (cube.dimensions.includes(dimension) ? dimensionOf(dimension) : DEFAULTS[dimension]).as(dimension),
      ),
      sql`${sql.lit(sign)} * COUNT(*)`.as('requests'),
      signed('quota').as('quota'),
      signed('prompt_tokens').as('prompt_tokens'),
      signed('completion_tokens').as('completion_tokens'),
    ])
    // Positions: 2 is the bucket, 3… the dimensions in DIMENSIONS' order.
    .groupBy([
      sql`2`,
      ...DIMENSIONS.flatMap((dimension, index) =>
        cube.dimensions.includes(dimension) ? [sql`${sql.lit(index + 3)}`] : [],
      ),
    ]);
  const insert = db
    .insertInto(cube.name)
    .columns(['span', 'bucket', ...DIMENSIONS, ...SUMS])
    .expression(grouped);
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
          .columns(cube.key)
          .doUpdateSet(
            Object.fromEntries(
              SUMS.map((sum) => [
                sum,
                sql`${sql.ref(`${cube.name}.${sum}`)} + ${sql.ref(`excluded.${sum}`)}`,
              ]),
            ),
          ),
      )
      .execute();
};

/** Deletes the cube rows a cleanup emptied: keyed as one of the range's rows, no request left. */
const deleteEmptied = async (
  db: Kysely<RollupTables>,
  cube: CubeDefinition,
  span: number,
  range: FactRange,
) => {
  const keys = rangeRows(db, range, true).select([
    sql`${sql.lit(span)}`.as('span'),
    bucketStart('logs.created_at', 0, span).as('bucket'),
    ...cube.dimensions.map((dimension) => dimensionOf(dimension).as(dimension)),
  ]);
  const columns = ['span', 'bucket', ...cube.dimensions];
  await db
    .deleteFrom(cube.name)
    .where('requests', '=', 0)
    .where(sql<boolean>`(${sql.join(columns.map((column) => sql.ref(column)))}) IN (${keys})`)
    .execute();
};

/**
 * Adds the range's consumption rows to every cube (sign 1), or takes rows about to be deleted out of
 * them (sign -1, then drops the cube rows left with no request): the range read once, grouped at the
 * finest grain, summed per cube here and upserted (statements compiled once, cube-upserts.ts). Run inside the transaction that
 * moves the watermark, or that deletes the rows.
 */
export const foldIntoCubes = async (
  trx: Kysely<Tables>,
  dialect: Dialect,
  range: FactRange,
  sign: 1 | -1,
): Promise<void> => {
  const db = withRollups(trx);
  const finest = await finestGroups(db, range, sign);
  if (finest.length === 0) return;
  // Rows that hardly group (a backfill of history: many users, keys and hours) are cheaper summed by
  // each cube's own INSERT … SELECT than carried here and back.
  const inSql = finest.length > Math.max(64, (range.through - range.after) / 4);
  for (const { cube, span } of CUBE_SPANS) {
    if (inSql) await foldCube(db, dialect, cube, span, range, sign);
    else await upsertCubeRows(db, dialect, cube, cubeRowsOf(finest, cube, span));
    if (sign < 0) await deleteEmptied(db, cube, span, range);
  }
};

/** Widens each hour's id range to the range's rows (every type: the lists use them). */
export const foldIntoHours = async (
  trx: Kysely<Tables>,
  dialect: Dialect,
  range: FactRange,
): Promise<void> => {
  const db = withRollups(trx);
  const shape = range.before === undefined ? 'open' : 'before';
  const build = (...values: number[]) => {
    const insert = db
      .insertInto(LOG_HOURS_TABLE)
      .columns(['hour', 'min_id', 'max_id'])
      .expression(
        rangeRows(db, rangeFrom(values), false)
          .select([
            bucketStart('logs.created_at', 0, HOUR).as('hour'),
            sql`MIN(logs.id)`.as('min_id'),
            sql`MAX(logs.id)`.as('max_id'),
          ])
          .groupBy(sql`1`),
      );
    if (dialect === 'mysql')
      return insert.onDuplicateKeyUpdate({
        min_id: sql`LEAST(min_id, VALUES(min_id))`,
        max_id: sql`GREATEST(max_id, VALUES(max_id))`,
      });
    const [lowest, highest] = dialect === 'sqlite' ? ['MIN', 'MAX'] : ['LEAST', 'GREATEST'];
    return insert.onConflict((conflict) =>
      conflict.column('hour').doUpdateSet({
        min_id: sql`${sql.raw(lowest)}(${sql.ref(`${LOG_HOURS_TABLE}.min_id`)}, ${sql.ref('excluded.min_id')})`,
        max_id: sql`${sql.raw(highest)}(${sql.ref(`${LOG_HOURS_TABLE}.max_id`)}, ${sql.ref('excluded.max_id')})`,
      }),
    );
  };
  await db.executeQuery(templated(db, `rollup hours ${shape}`, build, rangeValues(range)));
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
