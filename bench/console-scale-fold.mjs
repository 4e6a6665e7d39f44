import { performance } from 'node:perf_hooks';
import { URL, pathToFileURL } from 'node:url';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';

/**
 * @typedef {object} RollupJob
 * @property {() => Promise<number>} step  one chunk; the ids folded in (0: nothing left)
 */

/*
 * `--fold` (SQLite, PostgreSQL): folds the log into the roll-ups before Sluice starts, with Sluice's
 * own job (server/dist's createRollupJob, the same statements) run in this process without its rests
 * and in chunks of a million rows. Sluice's own backfill folds 2000 rows a chunk (and on SQLite rests
 * as long as each took, to leave the relay half of the connection): at 10M rows that is half an hour
 * (PostgreSQL) to an hour or more (SQLite) on this machine, where a million-row chunk folds 3–5× faster
 * per row (one sort, then the cubes' upserts in key order). Its rate is reported from a timed stretch
 * instead (`--fold-after`).
 */

/**
 * Folds what is above the watermark with Sluice's own job, without rests.
 * @param {import('kysely').Kysely<unknown>} db
 * @param {'sqlite' | 'postgres'} dialect
 * @param {string} main  server/dist/main.js, beside which the job's module lies
 * @param {number} chunkRows
 * @returns {Promise<{ rows: number, seconds: number }>}
 */
const foldWith = async (db, dialect, main, chunkRows) => {
  const url = new URL('services/log-rollup-job.js', pathToFileURL(main));
  /** @type {unknown} */
  const loaded = await import(url.href);
  const { createRollupJob } =
    /** @type {{ createRollupJob: (deps: object, options: object) => RollupJob }} */ (loaded);
  const started = performance.now();
  let rows = 0;
  try {
    const job = createRollupJob(
      { readDb: db, writeDb: db, dialect },
      { chunkRows, restRatio: 0, gapWaitMs: 0 },
    );
    for (let moved = await job.step(); moved > 0; moved = await job.step()) rows += moved;
  } finally {
    await db.destroy();
  }
  return { rows, seconds: Math.round(performance.now() - started) / 1000 };
};

/**
 * `--fold` on SQLite: one connection with a 1 GB page cache.
 * @param {string} path  the SQLite file
 * @param {string} main
 * @param {number} chunkRows
 */
export const foldSqlite = (path, main, chunkRows) => {
  const driver = new Sqlite(path);
  driver.pragma('journal_mode = WAL');
  driver.pragma('synchronous = NORMAL');
  driver.pragma('cache_size = -1000000');
  return foldWith(
    new Kysely({ dialect: new SqliteDialect({ database: driver }) }),
    'sqlite',
    main,
    chunkRows,
  );
};

/**
 * `--fold` on PostgreSQL (numbers come back as strings; the job reads them with Number).
 * @param {string} dsn
 * @param {string} main
 * @param {number} chunkRows
 */
export const foldPostgres = (dsn, main, chunkRows) =>
  foldWith(
    new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: dsn, max: 2 }) }) }),
    'postgres',
    main,
    chunkRows,
  );
