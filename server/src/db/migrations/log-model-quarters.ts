import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dsn.js';
import {
  HOUR,
  LOG_HOURS_TABLE,
  QUARTER,
  QUARTERS_STATE_NAME,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
} from '../log-rollup-tables.js';

// Kysely's migrations work on an untyped database by design: the schema is what they change.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/**
 * Migration 0017 (0006 on a separate logs database): `by_model` keeps quarter-hour buckets from here
 * on, and this records from which hour they are whole. Hour rows cannot be split, and summing the
 * folded log rows into quarters would be one scan of the whole log (minutes at 10M rows on MySQL,
 * holding its rows' locks) before the instance serves; so nothing is read from the logs. The rows up
 * to the watermark are folded without quarters: every hour from the one after the last hour holding
 * such a row gets only rows folded from now on, with their quarters. Earlier hours are read raw, as
 * before. On a database the job has not folded yet (a one-api log's first start, a new one) that
 * hour is 0: its backfill writes quarters for the whole history. The watermark's row is held
 * meanwhile, so that no fold lands in between.
 */
export const addModelQuarterStart = async (db: AnyDb, dialect: Dialect): Promise<void> => {
  const fill = async (trx: AnyDb) => {
    const state = trx.selectFrom(ROLLUP_STATE_TABLE).select('last_id').where('name', '=', ROLLUP_STATE_NAME);
    const row = (await (dialect === 'sqlite' ? state : state.forUpdate()).executeTakeFirst()) as
      { last_id?: unknown } | undefined;
    const watermark = Number(row?.last_id ?? 0);
    const folded = (await trx
      .selectFrom(LOG_HOURS_TABLE)
      .select(sql<unknown>`MAX(hour)`.as('hour'))
      .where('min_id', '<=', watermark)
      .executeTakeFirst()) as { hour?: unknown } | undefined;
    const last = folded?.hour === null || folded?.hour === undefined ? undefined : Number(folded.hour);
    const from = last === undefined ? 0 : last + HOUR;
    await trx.deleteFrom('sluice_log_by_model').where('span', '=', QUARTER).execute();
    await trx.deleteFrom(ROLLUP_STATE_TABLE).where('name', '=', QUARTERS_STATE_NAME).execute();
    await trx
      .insertInto(ROLLUP_STATE_TABLE)
      .values({ name: QUARTERS_STATE_NAME, last_id: from, updated_at: Math.floor(Date.now() / 1000) })
      .execute();
  };
  if (db.isTransaction) await fill(db);
  else await db.transaction().execute(fill);
};
