import type { Kysely } from 'kysely';
import type { Dialect } from '../db/dsn.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';
import { foldIntoCubes, lockWatermark } from './log-rollup-writes.js';

/**
 * Rows one DELETE covers at most. Small enough that no statement holds the write lock for long (on
 * SQLite about 10 ms with the logs' six indexes, on a 2-core machine), large enough that each index
 * page is rewritten for many rows at once.
 */
export const CLEANUP_BATCH_ROWS = 2000;

export interface LogCleanupDatabases {
  /** Where the batches run (on SQLite a thread of its own, each batch in the main connection's turn). */
  readonly db: Kysely<Tables>;
  /** Where the one long read (the last id to delete) runs. */
  readonly readDb: Kysely<Tables>;
  readonly dialect: Dialect;
}

/**
 * Deletes one batch in a transaction that also takes its consumption rows out of the roll-ups: the
 * rows up to the watermark (those the job folded in; its row locked meanwhile, so the job waits).
 * Rows above it were never folded in, and are deleted as they are.
 */
const deleteBatch = async (
  databases: LogCleanupDatabases,
  after: number,
  end: number,
  target: number,
): Promise<number> =>
  databases.db.transaction().execute(async (trx) => {
    const watermark = await lockWatermark(trx, databases.dialect);
    if (after < watermark)
      await foldIntoCubes(
        trx,
        databases.dialect,
        { after, through: Math.min(end, watermark), before: target },
        -1,
      );
    const result = await trx
      .deleteFrom('logs')
      .where('id', '>', after)
      .where('id', '<=', end)
      .where('created_at', '<', target)
      .executeTakeFirst();
    return sqlNumber(result.numDeletedRows);
  });

/** Lets the rest of the process (relay requests, the main connection's queries) run between two batches. */
const nextTurn = () => new Promise<void>((done) => setImmediate(done));

/**
 * Deletes every log row created before `target`, in batches of consecutive ids (each with its share
 * of the roll-ups), and answers how many went. The rows the first read saw as older than the target are the ones deleted, as one DELETE
 * would; a row written since then is left alone.
 *
 * The walk is by primary key (ids ascend with time, but not strictly: the created_at test stays in
 * every batch), so each statement finds its rows through the primary key, and no statement holds
 * the write lock for more than one batch.
 */
export const deleteLogsBefore = async (
  databases: LogCleanupDatabases,
  target: number,
  batchRows = CLEANUP_BATCH_ROWS,
): Promise<number> => {
  const { db, readDb } = databases;
  const bound = await readDb
    .selectFrom('logs')
    .select((eb) => eb.fn.max('id').as('last'))
    .where('created_at', '<', target)
    .executeTakeFirst();
  if (bound?.last === null || bound?.last === undefined) return 0;
  const last = sqlNumber(bound.last);
  let deleted = 0;
  for (let after = 0; after < last;) {
    const from = after;
    const batch = await db
      .selectFrom((eb) =>
        eb
          .selectFrom('logs')
          .select('id')
          .where('id', '>', from)
          .where('id', '<=', last)
          .orderBy('id')
          .limit(batchRows)
          .as('batch'),
      )
      .select((eb) => eb.fn.max('id').as('end'))
      .executeTakeFirst();
    if (batch?.end === null || batch?.end === undefined) break;
    const end = sqlNumber(batch.end);
    deleted += await deleteBatch(databases, from, end, target);
    after = end;
    await nextTurn();
  }
  return deleted;
};
