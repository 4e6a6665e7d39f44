import { PostgresAdapter, type Kysely } from 'kysely';
import {
  LOG_HOURS_TABLE,
  ROLLUP_STATE_NAME,
  ROLLUP_STATE_TABLE,
  type RollupTables,
} from '../db/log-rollup-tables.js';
import { sqlNumber } from '../db/sql-number.js';

/** What a read of the sums needs to know of the roll-ups' progress, read ahead in its snapshot. */
export interface KnownBounds {
  /** The highest log id folded into the cubes (the raw tail starts above it), if recorded. */
  readonly watermark: number | undefined;
  /** The folded id range of each hour asked for (an hour nothing was folded in is absent). */
  readonly hours: ReadonlyMap<number, { readonly min: number; readonly max: number }>;
}

/**
 * The watermark and the id ranges of the hours a window's edges read raw, read ahead of the sums so
 * that they can be written into the statement as values. PostgreSQL's planner cannot see a value
 * that comes from a subquery: it guessed a third of the log above the watermark (a parallel scan
 * whose workers cost several ms to start, for no row) and a fixed share of it in an hour, which it
 * read through the primary key, everyone's rows, where with the values it reads the filter's
 * `(x, id)` index. The caller reads these and the sums in one repeatable-read transaction, so both
 * see one snapshot.
 */
export const readKnownBounds = async (
  db: Kysely<RollupTables>,
  hours: readonly number[],
): Promise<KnownBounds> => {
  const state = await db
    .selectFrom(ROLLUP_STATE_TABLE)
    .select('last_id')
    .where('name', '=', ROLLUP_STATE_NAME)
    .executeTakeFirst();
  const rows =
    hours.length === 0
      ? []
      : await db
          .selectFrom(LOG_HOURS_TABLE)
          .select(['hour', 'min_id', 'max_id'])
          .where('hour', 'in', [...new Set(hours)])
          .execute();
  return {
    watermark: state ? sqlNumber(state.last_id) : undefined,
    hours: new Map(
      rows.map((row) => [sqlNumber(row.hour), { min: sqlNumber(row.min_id), max: sqlNumber(row.max_id) }]),
    ),
  };
};

/** Only PostgreSQL needs them as values: SQLite and MySQL already plan these reads well. */
export const plansBlindToSubqueries = <T>(db: Kysely<T>): boolean =>
  db.getExecutor().adapter instanceof PostgresAdapter;
