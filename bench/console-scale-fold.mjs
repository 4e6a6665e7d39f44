import { performance } from 'node:perf_hooks';
import { URL, pathToFileURL } from 'node:url';
import Sqlite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';

/**
 * @typedef {object} RollupJob
 * @property {() => Promise<number>} step  one chunk; the ids folded in (0: nothing left)
 */

/**
 * `--fold` (SQLite only): folds the log into the roll-ups before Sluice starts, with Sluice's own job
 * (server/dist's createRollupJob, the same statements) run in this process without its rests and in
 * chunks of a million rows, on one connection with a 1 GB page cache. Sluice's own backfill on SQLite
 * folds 2000 rows a chunk and rests as long as each took, to leave the relay half of the connection:
 * at 10M rows that is about an hour on this machine (a million-row chunk folds 3–5× faster per row: one
 * sort, then the cubes' upserts in key order), so its rate is reported from a timed stretch instead
 * (`--fold-after`).
 * @param {string} path  the SQLite file
 * @param {string} main  server/dist/main.js, beside which the job's module lies
 * @param {number} chunkRows
 * @returns {Promise<{ rows: number, seconds: number }>}
 */
export const foldSqlite = async (path, main, chunkRows) => {
  const url = new URL('services/log-rollup-job.js', pathToFileURL(main));
  /** @type {unknown} */
  const loaded = await import(url.href);
  const { createRollupJob } =
    /** @type {{ createRollupJob: (deps: object, options: object) => RollupJob }} */ (loaded);
  const driver = new Sqlite(path);
  driver.pragma('journal_mode = WAL');
  driver.pragma('synchronous = NORMAL');
  driver.pragma('cache_size = -1000000');
  const db = new Kysely({ dialect: new SqliteDialect({ database: driver }) });
  const started = performance.now();
  let rows = 0;
  try {
    const job = createRollupJob(
      { readDb: db, writeDb: db, dialect: 'sqlite' },
      { chunkRows, restRatio: 0, gapWaitMs: 0 },
    );
    for (let moved = await job.step(); moved > 0; moved = await job.step()) rows += moved;
  } finally {
    await db.destroy();
  }
  return { rows, seconds: Math.round(performance.now() - started) / 1000 };
};
