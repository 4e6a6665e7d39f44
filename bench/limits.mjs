/**
 * Issue 16's scenario: rate limits and budgets on the benchmark's key and on its user (root), with
 * Redis on, high enough that no request of the run is ever refused. BENCH_LIMITS=1 sets them on
 * every Sluice of the run, BENCH_B_LIMITS on Sluice B alone (a paired run: with against without).
 * Every Sluice of such a run has Redis on (its own database number, so the two keep their windows
 * apart and nothing else on the Redis is touched), so the only difference is the limits.
 */
import process from 'node:process';
import { Redis } from 'ioredis';
import Sqlite from 'better-sqlite3';
import { fetch } from 'undici';
import { BENCH_MODEL, ROOT_KEY, callApi, signIn } from './sluice-process.mjs';

/**
 * The key's limits. The run's peak is about 3 000 requests/s of about 100 tokens each, on at most
 * 64 connections: ≈ 180 000 requests and 18M tokens a minute. The key is the tighter of the two in
 * requests, the user in tokens, so that the check request's `x-ratelimit-limit-*` headers show that
 * Sluice applies both rows.
 */
export const KEY_LIMITS = {
  rpm_limit: 900_000_000,
  tpm_limit: 100_000_000_000,
  concurrency_limit: 10_000,
  budget_5h: 10_000_000_000_000,
  budget_daily: 20_000_000_000_000,
  budget_weekly: 50_000_000_000_000,
  budget_monthly: 100_000_000_000_000,
};
/** The user's limits (root, who owns the key and the populated keys). */
export const USER_LIMITS = {
  rpm_limit: 1_000_000_000,
  tpm_limit: 90_000_000_000,
  concurrency_limit: 20_000,
  budget_5h: 10_000_000_000_000,
  budget_daily: 20_000_000_000_000,
  budget_weekly: 50_000_000_000_000,
  budget_monthly: 100_000_000_000_000,
};

/** The Redis database of the first Sluice; Sluice B takes the next one. */
const FIRST_REDIS_DB = 5;

/**
 * What a Sluice's key and user carry: nothing, rate limits and budgets (`1`), or one kind alone
 * (`rate`: RPM, TPM, concurrency; `budget`: the four budgets), to tell their costs apart.
 * @typedef {'off' | 'all' | 'rate' | 'budget'} LimitKind
 */

/**
 * @param {string} name
 * @param {string | undefined} value
 * @returns {LimitKind}
 */
const kindOf = (name, value) => {
  if (value === undefined || value === '' || value === '0') return 'off';
  if (value === '1') return 'all';
  if (value === 'rate' || value === 'budget') return value;
  throw new Error(`${name}: 0, 1, rate or budget`);
};

/**
 * @param {string} name
 * @param {string} value
 * @returns {boolean}
 */
const flag = (name, value) => {
  if (value === '0' || value === '1') return value === '1';
  throw new Error(`${name}: 0 or 1`);
};

/**
 * The switches: BENCH_LIMITS (both Sluices), BENCH_B_LIMITS (Sluice B; defaults to BENCH_LIMITS),
 * BENCH_REDIS (1: Redis on without limits; 0: off even with limits, which then count in memory;
 * default: on when either Sluice has limits), BENCH_REDIS_URL (redis://127.0.0.1:6379).
 * @param {NodeJS.ProcessEnv} env
 */
export const limitSwitches = (env = process.env) => {
  const limits = kindOf('BENCH_LIMITS', env['BENCH_LIMITS']);
  const pairLimits = kindOf('BENCH_B_LIMITS', env['BENCH_B_LIMITS'] ?? env['BENCH_LIMITS']);
  const redis =
    env['BENCH_REDIS'] === undefined || env['BENCH_REDIS'] === ''
      ? limits !== 'off' || pairLimits !== 'off'
      : flag('BENCH_REDIS', env['BENCH_REDIS']);
  const base = (env['BENCH_REDIS_URL'] || 'redis://127.0.0.1:6379').replace(/\/\d*$/, '');
  return {
    limits,
    pairLimits,
    /** BENCH_B_LIMITS given: a paired run. */
    pairs: env['BENCH_B_LIMITS'] !== undefined,
    /**
     * The Redis URL of the Sluice at `index` (0 first, 1 Sluice B), undefined with Redis off.
     * @param {number} index
     */
    redisUrl: (index) => (redis ? `${base}/${FIRST_REDIS_DB + index}` : undefined),
  };
};

/**
 * Deletes what Sluice keeps in the bench's Redis database (its keys start with `sluice:`), before
 * and after the run; nothing else there is touched.
 * @param {string} url
 * @returns {Promise<number>} keys deleted
 */
export const clearRedis = async (url) => {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5000 });
  try {
    await client.connect();
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', 'sluice:*', 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await client.del(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    client.disconnect();
  }
};

const RATE_COLUMNS = ['rpm_limit', 'tpm_limit', 'concurrency_limit'];

/**
 * The columns of `limits` a kind sets.
 * @param {Record<string, number>} limits
 * @param {LimitKind} kind
 * @returns {Record<string, number>}
 */
const columnsOf = (limits, kind) =>
  Object.fromEntries(
    Object.entries(limits).filter(([column]) =>
      kind === 'all'
        ? true
        : kind === 'rate'
          ? RATE_COLUMNS.includes(column)
          : kind === 'budget' && !RATE_COLUMNS.includes(column),
    ),
  );

/**
 * @param {Record<string, number>} limits
 * @returns {string}
 */
const assignments = (limits) =>
  Object.keys(limits)
    .map((column) => `${column} = @${column}`)
    .join(', ');

/**
 * Sets KEY_LIMITS on the bench's key and USER_LIMITS on its user (those of `kind`), in Sluice's SQLite file while it
 * runs (an administrator cannot change root through the API, and a key's update through it rewrites
 * every field), then tells Sluice both rows changed the way the console does (the user's own profile
 * saved as it is, the key's status set as it is), so the relay reads them again.
 * @param {string} origin
 * @param {string} sqlitePath
 * @param {LimitKind} kind
 */
export const applyLimits = async (origin, sqlitePath, kind) => {
  const keyLimits = columnsOf(KEY_LIMITS, kind);
  const userLimits = columnsOf(USER_LIMITS, kind);
  const db = new Sqlite(sqlitePath);
  /** @type {{ id: number, user_id: number }} */
  let token;
  try {
    db.pragma('busy_timeout = 5000');
    const row = db.prepare('SELECT id, user_id FROM tokens WHERE key = ?').get(ROOT_KEY.slice(3));
    if (!row) throw new Error('the bench key is not in the database');
    token = /** @type {{ id: number, user_id: number }} */ (row);
    db.prepare(`UPDATE tokens SET ${assignments(keyLimits)} WHERE id = @id`).run({
      ...keyLimits,
      id: token.id,
    });
    db.prepare(`UPDATE users SET ${assignments(userLimits)} WHERE id = @id`).run({
      ...userLimits,
      id: token.user_id,
    });
  } finally {
    db.close();
  }
  const cookie = await signIn(origin);
  const self = /** @type {{ data?: { display_name?: unknown } }} */ (
    await (await fetch(`${origin}/api/user/self`, { headers: { cookie } })).json()
  );
  const displayName = typeof self.data?.display_name === 'string' ? self.data.display_name : '';
  await callApi(origin, '/api/user/self', { method: 'PUT', cookie, body: { display_name: displayName } });
  await callApi(origin, '/api/token/?status_only=true', {
    method: 'PUT',
    cookie,
    body: { id: token.id, status: 1 },
  });
};

/**
 * Proves the scenario before measuring: with rate limits, one request answers the key's RPM and the
 * user's TPM in its `x-ratelimit-*` headers (the relay applies both rows); with budgets, the key's
 * and the user's both count spending (or hold room for it); without, no such header and nothing counted.
 * @param {string} origin
 * @param {string} sqlitePath
 * @param {LimitKind} kind
 */
export const checkLimits = async (origin, sqlitePath, kind) => {
  const response = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ROOT_KEY}` },
    body: JSON.stringify({ model: BENCH_MODEL, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 8 }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`limits check: Sluice answered ${response.status}`);
  const requests = response.headers.get('x-ratelimit-limit-requests');
  const tokens = response.headers.get('x-ratelimit-limit-tokens');
  const db = new Sqlite(sqlitePath, { readonly: true });
  /** @type {string[]} */
  let budgeted;
  try {
    const columns = /** @type {{ name: string }[]} */ (
      db.prepare("SELECT name FROM pragma_table_info('sluice_budget_usage')").all()
    ).map((column) => column.name);
    // `held` since 0015 (a build before it, benched against, has `used` alone); a build from before
    // budgets (issue 20's baseline) has no such table: nothing counts.
    const rows = /** @type {{ subject: string }[]} */ (
      columns.length === 0
        ? []
        : db
            .prepare(
              columns.includes('held')
                ? 'SELECT DISTINCT subject FROM sluice_budget_usage WHERE used + held > 0'
                : 'SELECT DISTINCT subject FROM sluice_budget_usage WHERE used > 0',
            )
            .all()
    );
    budgeted = rows.map((row) => row.subject).sort();
  } finally {
    db.close();
  }
  const seen = `x-ratelimit-limit-requests ${requests}, x-ratelimit-limit-tokens ${tokens}, budgets counting for [${budgeted.join(', ')}]`;
  const rated = kind === 'all' || kind === 'rate';
  const budgets = kind === 'all' || kind === 'budget';
  const expected =
    (rated
      ? requests === String(KEY_LIMITS.rpm_limit) && tokens === String(USER_LIMITS.tpm_limit)
      : requests === null && tokens === null) && budgeted.join(',') === (budgets ? 't,u' : '');
  if (!expected) throw new Error(`limits check (${KIND_TEXT[kind]}): ${seen}`);
  return seen;
};

/** @type {Record<LimitKind, string>} */
const KIND_TEXT = {
  off: 'no limits or budgets',
  all: 'rate limits and budgets on the key and its user',
  rate: 'rate limits (no budgets) on the key and its user',
  budget: 'budgets (no rate limits) on the key and its user',
};

/**
 * What a Sluice of the run ran with, for the output.
 * @param {{ routing: { channels: number, affinity: boolean }, limits: LimitKind, redisUrl: string | undefined }} instance
 * @returns {string}
 */
export const switchesOf = (instance) =>
  [
    `${instance.routing.channels} channel${instance.routing.channels === 1 ? '' : 's'} on the bench model`,
    `affinity ${instance.routing.affinity ? 'on' : 'off'}`,
    KIND_TEXT[instance.limits],
    instance.redisUrl ? `Redis ${instance.redisUrl}` : 'no Redis',
  ].join(', ');
