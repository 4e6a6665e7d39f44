import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { bucketStart } from '../db/day-bucket.js';
import type { Dialect } from '../db/dsn.js';
import {
  CUBES,
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
import type { Tables } from '../db/tables.js';

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

const SUMS = ['requests', 'quota', 'prompt_tokens', 'completion_tokens'] as const;

const rangeRows = (db: Kysely<RollupTables>, range: FactRange, consumeOnly: boolean) => {
  let query = db.selectFrom('logs').where('logs.id', '>', range.after).where('logs.id', '<=', range.through);
  if (range.before !== undefined) query = query.where('logs.created_at', '<', range.before);
  return consumeOnly ? query.where('logs.type', '=', LOG_TYPE.consume) : query;
};

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
 * them (sign -1, then drops the cube rows left with no request). Run inside the transaction that
 * moves the watermark, or that deletes the rows.
 */
export const foldIntoCubes = async (
  trx: Kysely<Tables>,
  dialect: Dialect,
  range: FactRange,
  sign: 1 | -1,
): Promise<void> => {
  const db = withRollups(trx);
  for (const cube of CUBES)
    for (const span of cube.spans) {
      await foldCube(db, dialect, cube, span, range, sign);
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
  const hour = bucketStart('logs.created_at', 0, HOUR);
  const insert = db
    .insertInto(LOG_HOURS_TABLE)
    .columns(['hour', 'min_id', 'max_id'])
    .expression(
      rangeRows(db, range, false)
        .select([hour.as('hour'), sql`MIN(logs.id)`.as('min_id'), sql`MAX(logs.id)`.as('max_id')])
        .groupBy(sql`1`),
    );
  if (dialect === 'mysql') {
    await insert
      .onDuplicateKeyUpdate({
        min_id: sql`LEAST(min_id, VALUES(min_id))`,
        max_id: sql`GREATEST(max_id, VALUES(max_id))`,
      })
      .execute();
    return;
  }
  const [lowest, highest] = dialect === 'sqlite' ? ['MIN', 'MAX'] : ['LEAST', 'GREATEST'];
  await insert
    .onConflict((conflict) =>
      conflict.column('hour').doUpdateSet({
        min_id: sql`${sql.raw(lowest)}(${sql.ref(`${LOG_HOURS_TABLE}.min_id`)}, ${sql.ref('excluded.min_id')})`,
        max_id: sql`${sql.raw(highest)}(${sql.ref(`${LOG_HOURS_TABLE}.max_id`)}, ${sql.ref('excluded.max_id')})`,
      }),
    )
    .execute();
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
