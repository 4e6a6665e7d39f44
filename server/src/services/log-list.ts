import type { Kysely } from 'kysely';
import { HOUR, LOG_HOURS_TABLE, withRollups } from '../db/log-rollup-tables.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';
import { windowOf } from './log-rollup-read.js';
import { readWatermark } from './log-rollup-writes.js';
import { LOG_COLUMNS, logConditions, type LogRow, type LogScope } from './log-scope.js';
import type { TimeRange } from './log-time-plan.js';

/** The ids a window's rows up to the watermark lie between, from the hours' id ranges. */
const idRangeOf = async (
  db: Kysely<Tables>,
  window: TimeRange,
): Promise<{ lo: number; hi: number } | undefined> => {
  let query = withRollups(db)
    .selectFrom(LOG_HOURS_TABLE)
    .select((eb) => [eb.fn.min('min_id').as('lo'), eb.fn.max('max_id').as('hi')]);
  if (window.from !== undefined)
    query = query.where('hour', '>=', window.from - (((window.from % HOUR) + HOUR) % HOUR));
  if (window.to !== undefined) query = query.where('hour', '<', window.to);
  const row = await query.executeTakeFirst();
  if (row?.lo === null || row?.lo === undefined || row.hi === null) return undefined;
  return { lo: sqlNumber(row.lo), hi: sqlNumber(row.hi) };
};

/**
 * A page of a scope's rows, newest (highest id) first. Without a time window the filters' `(x, id)`
 * indexes (or the primary key) give the order. With one, the window becomes an id range: the rows
 * above the watermark (few: the roll-up job's lag) first, then the rows between the lowest and
 * highest id of the window's hours, walked down the same indexes, so that a window far in the past
 * costs what the newest does. The watermark is read before the hours, so no row falls between.
 */
export const listLogRows = async (
  db: Kysely<Tables>,
  scope: LogScope,
  limit: number,
  offset: number,
): Promise<LogRow[]> => {
  const window = windowOf(scope.start_timestamp, scope.end_timestamp);
  const rows = () => db.selectFrom('logs').select(LOG_COLUMNS).where(logConditions(scope, true));
  if (window.from === undefined && window.to === undefined)
    return rows().orderBy('id', 'desc').limit(limit).offset(offset).execute();
  const watermark = await readWatermark(db);
  const tail = await rows()
    .where('id', '>', watermark)
    .orderBy('id', 'desc')
    .limit(offset + limit)
    .execute();
  if (tail.length >= offset + limit) return tail.slice(offset);
  const range = await idRangeOf(db, window);
  const fromTail = tail.slice(offset);
  if (!range) return fromTail;
  const below = await rows()
    .where('id', '>=', range.lo)
    .where('id', '<=', Math.min(range.hi, watermark))
    .orderBy('id', 'desc')
    .limit(limit - fromTail.length)
    .offset(Math.max(0, offset - tail.length))
    .execute();
  return [...fromTail, ...below];
};
