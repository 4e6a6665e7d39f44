import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import Sqlite from 'better-sqlite3';
import { BENCH_MODEL, BENCH_PRIORITY } from './sluice-process.mjs';

const KEY_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LOG_TYPE_CONSUME = 2;
const OTHER_GROUPS = ['default', 'vip', 'svip', 'team-a', 'team-b', 'team-c'];
/** One channel in this many of the populated ones also serves BENCH_MODEL, below the bench channel. */
const SAME_MODEL_EVERY = 10;
const LOG_BATCH = 100_000;

/**
 * A key as Sluice makes them: 48 letters and digits.
 * @returns {string}
 */
const newKey = () => {
  const bytes = randomBytes(48);
  let key = '';
  for (const byte of bytes) key += KEY_ALPHABET[byte % KEY_ALPHABET.length];
  return key;
};

/**
 * @typedef {object} PopulateCounts
 * @property {number} tokens
 * @property {number} channels
 * @property {number} logs
 */

/**
 * @typedef {object} PopulateResult
 * @property {string[]} keys  the extra keys (without sk-), for the cold-key measurement
 * @property {Record<string, number>} rows  row counts of the tables after populating
 * @property {Record<string, number>} seconds  time taken by each table
 */

/**
 * Writes the extra rows straight into Sluice's SQLite file (Sluice must be stopped): keys of root,
 * channels on other models and groups (one in ten also serves BENCH_MODEL at a lower priority, all
 * pointing at the double) with their abilities, and consumption log rows over the last 30 days.
 * @param {string} sqlitePath
 * @param {PopulateCounts} counts
 * @param {string} upstreamOrigin
 * @param {string[]} [sameKeys]  the keys to write (another database's), instead of new ones
 * @returns {PopulateResult}
 */
export const populate = (sqlitePath, counts, upstreamOrigin, sameKeys) => {
  const db = new Sqlite(sqlitePath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -262144');
  try {
    /** @type {Record<string, number>} */
    const seconds = {};
    const timed = (/** @type {string} */ name, /** @type {() => void} */ work) => {
      const started = performance.now();
      work();
      seconds[name] = Math.round(performance.now() - started) / 1000;
    };
    const now = Math.floor(Date.now() / 1000);
    /** @type {string[]} */
    const keys = [];
    timed('tokens', () => insertTokens(db, counts.tokens, now, keys, sameKeys));
    timed('channels', () => insertChannels(db, counts.channels, now, upstreamOrigin));
    timed('logs', () => insertLogs(db, counts.logs, counts.tokens, counts.channels, now));
    /** @type {Record<string, number>} */
    const rows = {};
    for (const table of ['tokens', 'channels', 'abilities', 'logs']) {
      const row = /** @type {{ n: number }} */ (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get());
      rows[table] = row.n;
    }
    timed('checkpoint', () => db.pragma('wal_checkpoint(TRUNCATE)'));
    return { keys, rows, seconds };
  } finally {
    db.close();
  }
};

/**
 * @param {import('better-sqlite3').Database} db
 * @param {number} count
 * @param {number} now
 * @param {string[]} keys  receives the keys written
 * @param {string[]} [sameKeys]  the keys to write, when given
 */
const insertTokens = (db, count, now, keys, sameKeys) => {
  const insert = db.prepare(
    `INSERT INTO tokens (user_id, key, status, name, created_time, accessed_time, expired_time,
       remain_quota, unlimited_quota, used_quota, models, subnet)
     VALUES (1, ?, 1, ?, ?, ?, -1, ?, ?, 0, '', '')`,
  );
  db.transaction(() => {
    for (let index = 0; index < count; index += 1) {
      const key = sameKeys?.[index] ?? newKey();
      keys.push(key);
      insert.run(key, `bench-key-${index}`, now, now, 500_000_000, index % 2);
    }
  })();
};

/**
 * @param {import('better-sqlite3').Database} db
 * @param {number} count
 * @param {number} now
 * @param {string} upstreamOrigin
 */
const insertChannels = (db, count, now, upstreamOrigin) => {
  const insert = db.prepare(
    `INSERT INTO channels (type, key, status, name, weight, created_time, test_time, response_time,
       base_url, other, balance, balance_updated_time, models, "group", used_quota, model_mapping,
       priority, config, system_prompt, test_model)
     VALUES (1, ?, ?, ?, ?, ?, 0, 0, ?, '', 0, 0, ?, ?, 0, '', ?, '', '', '')`,
  );
  const ability = db.prepare(
    `INSERT OR IGNORE INTO abilities ("group", model, channel_id, enabled, priority) VALUES (?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    for (let index = 0; index < count; index += 1) {
      const sameModel = index % SAME_MODEL_EVERY === 0;
      const models = sameModel
        ? [BENCH_MODEL, `bench-other-${index % 97}`]
        : [
            `bench-other-${index % 97}`,
            `bench-other-${(index + 31) % 97}`,
            `bench-other-${(index + 61) % 97}`,
          ];
      const groups = sameModel
        ? ['default']
        : [OTHER_GROUPS[index % OTHER_GROUPS.length] ?? 'default', `team-${index % 20}`];
      const status = index % 25 === 24 ? 2 : 1;
      const priority = sameModel ? BENCH_PRIORITY - 1 - (index % 5) : index % 7;
      const result = insert.run(
        `sk-populated-${index}`,
        status,
        `populated-${index}`,
        index % 3,
        now,
        upstreamOrigin,
        models.join(','),
        groups.join(','),
        priority,
      );
      for (const group of groups)
        for (const model of models)
          ability.run(group, model, result.lastInsertRowid, status === 1 ? 1 : 0, priority);
    }
  })();
};

/**
 * @param {import('better-sqlite3').Database} db
 * @param {number} count
 * @param {number} tokens
 * @param {number} channels
 * @param {number} now
 */
const insertLogs = (db, count, tokens, channels, now) => {
  const insert = db.prepare(
    `INSERT INTO logs (user_id, created_at, type, content, username, token_name, model_name, quota,
       prompt_tokens, completion_tokens, channel_id, request_id, elapsed_time, is_stream,
       system_prompt_reset)
     VALUES (1, ?, ?, ?, 'root', ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
  );
  const span = 30 * 24 * 3600;
  const content = 'model ratio 0.75, completion ratio 1.33, group ratio 1.00';
  for (let start = 0; start < count; start += LOG_BATCH) {
    db.transaction(() => {
      for (let index = start; index < Math.min(count, start + LOG_BATCH); index += 1) {
        const prompt = 20 + (index % 400);
        const completion = 10 + (index % 250);
        insert.run(
          now - span + Math.floor((index * span) / count),
          LOG_TYPE_CONSUME,
          content,
          `bench-key-${index % Math.max(1, tokens)}`,
          index % 4 === 0 ? BENCH_MODEL : `bench-other-${index % 97}`,
          prompt + completion,
          prompt,
          completion,
          1 + (index % Math.max(1, channels)),
          `2024${String(index).padStart(16, '0')}`,
          50 + (index % 900),
          index % 3 === 0 ? 1 : 0,
        );
      }
    })();
  }
};
