import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../db/dsn.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';
import { nowSeconds } from '../lib/time.js';
import { advanceWatermark, foldIntoCubes, foldIntoHours, readWatermark } from './log-rollup-writes.js';

export interface RollupJobDeps {
  /** Where the job looks ahead (off the relay's thread on SQLite: the maintenance thread). */
  readonly readDb: Kysely<Tables>;
  /** Where each chunk is written, in one transaction (on SQLite, the maintenance thread). */
  readonly writeDb: Kysely<Tables>;
  readonly dialect: Dialect;
}

export interface RollupJobOptions {
  /** Log ids per transaction. */
  readonly chunkRows: number;
  /**
   * A missing id (a gap) may be a row whose transaction has not committed yet. The watermark stops
   * before it until this instance has seen it missing for this long …
   */
  readonly gapWaitMs: number;
  /** … or until the row after it is this old (a backfill: its gaps were deleted rows long ago). */
  readonly gapAgeSeconds: number;
  /**
   * Between two chunks of a run, a rest this many times as long as the chunk took. On SQLite a chunk
   * holds the main connection, so a backfill of millions of rows leaves the relay half of it.
   */
  readonly restRatio: number;
  readonly nowMs: () => number;
}

const DEFAULTS: Omit<RollupJobOptions, 'restRatio'> = {
  chunkRows: 2000,
  gapWaitMs: 30_000,
  gapAgeSeconds: 300,
  nowMs: () => Date.now(),
};

/**
 * SQLite: the page cache (KiB) a catch-up of more than a chunk borrows on its write connection. A
 * chunk upserts into the cubes' B-trees all over; with SQLite's default 2 MB most of those pages
 * were read again for each chunk once the cubes outgrew it. Given back when the run ends.
 */
export const BACKFILL_PAGE_CACHE_KIB = 65_536;
const DEFAULT_PAGE_CACHE_KIB = 2_000;

const pageCache = async (db: Kysely<Tables>, kib: number) => {
  await sql.raw(`PRAGMA cache_size = -${kib}`).execute(db);
  if (kib === DEFAULT_PAGE_CACHE_KIB) await sql.raw('PRAGMA shrink_memory').execute(db);
};

/** Another instance moved the watermark first: this chunk is its, not ours. */
class LostRace extends Error {}

const rest = (ms: number) =>
  new Promise<void>((done) => (ms > 0 ? setTimeout(done, ms) : setImmediate(done)));

/**
 * The roll-up job: folds the log rows above the watermark into the cubes and the hours' id ranges,
 * a chunk per transaction, the watermark moved in the same transaction only if no other instance
 * moved it meanwhile (compare-and-set on its row: every instance may run the job, none counts a
 * row twice). It reads the logs by id, so rows other writers insert (one-api, top-ups, system
 * rows) are folded in as Sluice's own, and a one-api database's history is the same job catching
 * up chunk by chunk.
 *
 * Ids are given out before their transactions commit, so a gap in the ids may still fill: the
 * watermark passes a gap only once it is old (see the options); until then the rows above it are
 * read raw by the queries (exact, just slower). A row committed later than that is never folded
 * in; docs/architecture.md says so.
 */
export const createRollupJob = (deps: RollupJobDeps, overrides: Partial<RollupJobOptions> = {}) => {
  const options: RollupJobOptions = {
    ...DEFAULTS,
    restRatio: deps.dialect === 'sqlite' ? 1 : 0,
    ...overrides,
  };
  /** Gaps (by their first missing id) and when this instance first saw each. */
  const gapsSeen = new Map<number, number>();
  let running: Promise<number> | undefined;
  let stopped = false;

  const gapPassable = (firstMissing: number, nextCreatedAt: number): boolean => {
    if (nowSeconds() - nextCreatedAt >= options.gapAgeSeconds) return true;
    const now = options.nowMs();
    const seen = gapsSeen.get(firstMissing);
    if (seen === undefined) {
      gapsSeen.set(firstMissing, now);
      return options.gapWaitMs <= 0;
    }
    return now - seen >= options.gapWaitMs;
  };

  /** The watermark and how far the next chunk may move it (the same when there is nothing to do). */
  const plan = async (): Promise<{ from: number; to: number }> => {
    const from = await readWatermark(deps.readDb);
    const ahead = await deps.readDb
      .selectFrom('logs')
      .select(['id', 'created_at'])
      .where('id', '>', from)
      .orderBy('id')
      .limit(options.chunkRows)
      .execute();
    // MySQL: a chunk never ends at the newest row. Its INSERT … SELECT locks the row after the chunk
    // (REPEATABLE READ's next-key lock): an existing row, never the table's end, where inserts go.
    const candidates =
      deps.dialect === 'mysql' && ahead.length < options.chunkRows ? ahead.slice(0, -1) : ahead;
    let to = from;
    for (const row of candidates) {
      const id = sqlNumber(row.id);
      if (id > to + 1 && !gapPassable(to + 1, sqlNumber(row.created_at))) break;
      to = id;
    }
    for (const gap of gapsSeen.keys()) if (gap <= to) gapsSeen.delete(gap);
    return { from, to };
  };

  /** One chunk: answers the ids folded in (0: nothing to do, or another instance did it). */
  const step = async (): Promise<number> => {
    const { from, to } = await plan();
    if (to <= from) return 0;
    try {
      return await deps.writeDb.transaction().execute(async (trx) => {
        if (!(await advanceWatermark(trx, from, to, nowSeconds()))) throw new LostRace();
        const range = { after: from, through: to };
        await foldIntoCubes(trx, deps.dialect, range, 1);
        await foldIntoHours(trx, deps.dialect, range);
        return to - from;
      });
    } catch (error) {
      if (error instanceof LostRace) return 0;
      throw error;
    }
  };

  /** Chunks until nothing is left (or `stop`), yielding between them; one run at a time. */
  const catchUp = (): Promise<number> => {
    running ??= (async () => {
      let total = 0;
      let widened = false;
      try {
        while (!stopped) {
          const started = performance.now();
          const moved = await step();
          if (moved === 0) break;
          total += moved;
          if (!widened && moved >= options.chunkRows && deps.dialect === 'sqlite') {
            widened = true;
            await pageCache(deps.writeDb, BACKFILL_PAGE_CACHE_KIB);
          }
          await rest((performance.now() - started) * options.restRatio);
        }
      } finally {
        // If the database is away the cache stays wide: memory, not money.
        if (widened) await pageCache(deps.writeDb, DEFAULT_PAGE_CACHE_KIB).catch(() => undefined);
        running = undefined;
      }
      return total;
    })();
    return running;
  };

  return {
    step,
    catchUp,
    /** Ends a run in progress after its chunk; no run starts afterwards. */
    stop: async () => {
      stopped = true;
      await running?.catch(() => undefined);
    },
  };
};

export type RollupJob = ReturnType<typeof createRollupJob>;
