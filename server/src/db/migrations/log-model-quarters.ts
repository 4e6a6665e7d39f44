import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { bucketStart } from '../day-bucket.js';
import type { Dialect } from '../dsn.js';
import {
  DIMENSIONS,
  QUARTER,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
  type Dimension,
} from '../log-rollup-tables.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

const MODEL_CUBE = 'sluice_log_by_model';
const SUMS = ['requests', 'quota', 'prompt_tokens', 'completion_tokens'] as const;
const KEYED: readonly Dimension[] = ['model_name', 'client_format'];
/** The cube's dimensions as its rows keep them: the model and the format, the others '' or 0. */
const KEPT: Record<Dimension, RawBuilder<unknown>> = {
  user_id: sql.lit(0),
  username: sql.lit(''),
  token_name: sql.lit(''),
  channel_id: sql.lit(0),
  model_name: sql`COALESCE(model_name, '')`,
  client_format: sql`COALESCE(client_format, '')`,
};

/**
 * Migration 0017 (0006 on a separate logs database): `by_model` gets quarter-hour buckets, summed
 * from the consumption rows the roll-up job has folded in (ids up to its watermark), so that a zone
 * not in whole hours reads the hour holding its midnight from them. Hour rows cannot be split, so
 * this reads the log itself: one grouped scan, on a one-api log of 10M rows a matter of tens of
 * seconds at the first start. The roll-up job writes quarters from here on. The watermark's row is
 * held meanwhile, so that no fold lands between the two statements; the quarter rows are deleted
 * first, so the sum is right whatever an earlier attempt left.
 */
export const addModelQuarterBuckets = async (db: AnyDb, dialect: Dialect): Promise<void> => {
  const fill = async (trx: AnyDb) => {
    const state = trx.selectFrom(ROLLUP_STATE_TABLE).select('last_id').where('name', '=', ROLLUP_STATE_NAME);
    const row = (await (dialect === 'sqlite' ? state : state.forUpdate()).executeTakeFirst()) as
      { last_id?: unknown } | undefined;
    const watermark = Number(row?.last_id ?? 0);
    await trx.deleteFrom(MODEL_CUBE).where('span', '=', QUARTER).execute();
    if (watermark <= 0) return;
    await trx
      .insertInto(MODEL_CUBE)
      .columns(['span', 'bucket', ...DIMENSIONS, ...SUMS])
      .expression(
        trx
          .selectFrom('logs')
          .select([
            sql.lit(QUARTER).as('span'),
            bucketStart('created_at', 0, QUARTER).as('bucket'),
            ...DIMENSIONS.map((dimension) => KEPT[dimension].as(dimension)),
            sql<number>`COUNT(*)`.as('requests'),
            sql<number>`COALESCE(SUM(quota), 0)`.as('quota'),
            sql<number>`COALESCE(SUM(prompt_tokens), 0)`.as('prompt_tokens'),
            sql<number>`COALESCE(SUM(completion_tokens), 0)`.as('completion_tokens'),
          ])
          .where('type', '=', LOG_TYPE.consume)
          .where('id', '<=', watermark)
          // Positions: 2 is the quarter, 3… the dimensions in DIMENSIONS' order.
          .groupBy([sql`2`, ...KEYED.map((dimension) => sql`${sql.lit(DIMENSIONS.indexOf(dimension) + 3)}`)]),
      )
      .execute();
  };
  if (db.isTransaction) await fill(db);
  else await db.transaction().execute(fill);
};
