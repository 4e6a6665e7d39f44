import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { URL, fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import bcrypt from 'bcryptjs';
import { fetch } from 'undici';
import { killAll } from './children.mjs';
import { mysqlBufferPool, scaleTargets } from './console-scale-db.mjs';
import { foldPostgres, foldSqlite } from './console-scale-fold.mjs';
import { HEAVY, USERS, loadAccounts, loadLogs } from './console-scale-load.mjs';
import { startSluice, stopSluice } from './sluice-process.mjs';

/**
 * The console's reads at scale (issue 22): for each dialect and log size, an empty database of the
 * bench's own that Sluice starts on (its schema), 10k users with 20k keys, 50 channels and N log rows
 * generated in the database, Sluice started again to fold them into the roll-ups (timed), then every
 * read the console's pages send, as root and as users, SAMPLES times each after WARMUP, p50/p95.
 * docs: bench/README.md, "Console reads at scale".
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(ROOT, 'server/dist/main.js');
const PASSWORD = 'bench-scale-password';
const DAY = 86_400;

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '500000' },
    samples: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '3' },
    port: { type: 'string', default: '3917' },
    'pg-admin': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'mysql-host': { type: 'string', default: '127.0.0.1' },
    'mysql-port': { type: 'string', default: '3306' },
    'mysql-user': { type: 'string', default: 'root' },
    'mysql-buffer-pool': { type: 'string', default: '0' },
    'sqlite-dir': { type: 'string', default: tmpdir() },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    main: { type: 'string', default: MAIN },
    fold: { type: 'boolean', default: false },
    'fold-after': { type: 'string', default: '120' },
  },
});
const samples = Number(values.samples);
const warmup = Number(values.warmup);
const origin = `http://127.0.0.1:${values.port}`;

/** @param {number} ms */
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

/**
 * @param {string} path
 * @param {{ cookie?: string, method?: string, body?: unknown }} [options]
 */
const call = async (path, options = {}) => {
  const response = await fetch(origin + path, {
    method: options.method ?? 'GET',
    headers: {
      'content-type': 'application/json',
      ...(options.cookie ? { cookie: options.cookie } : {}),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  const ok = response.ok && /^\{"success":true/.test(text.replace(/\s/g, ''));
  if (!ok) throw new Error(`${path}: ${response.status} ${text.slice(0, 200)}`);
  return { response, bytes: text.length };
};

/** @param {string} username */
const signIn = async (username, password = PASSWORD) => {
  const response = await call('/api/user/login', { method: 'POST', body: { username, password } });
  return response.response.headers
    .getSetCookie()
    .map((line) => line.split(';')[0] ?? '')
    .filter((pair) => pair.startsWith('session='))
    .join('; ');
};

/**
 * The reads of the console's pages: who sends them and the path.
 * @param {number} now
 * @returns {[string, 'root' | 'heavy' | 'light', string][]}
 */
const consoleReads = (now) => {
  const week = `start_timestamp=${now - 7 * DAY}&end_timestamp=${now + 3600}`;
  const past = `start_timestamp=${now - 60 * DAY}&end_timestamp=${now - 53 * DAY}`;
  const usage = (days = 7, tz = 480) =>
    `start_timestamp=${now - days * DAY}&end_timestamp=${now}&tz_offset=${tz}`;
  return [
    ['stat, whole history (API default)', 'root', '/api/log/stat?type=0'],
    ['stat, last 7 days (Logs page)', 'root', `/api/log/stat?type=0&${week}`],
    ['stat, heavy user, 7 days', 'root', `/api/log/stat?type=0&username=user2&${week}`],
    ['stat, channel + model, history', 'root', '/api/log/stat?type=2&channel=3&model_name=model-2'],
    ['stat, key name, history', 'root', '/api/log/stat?type=0&token_name=user2-key-0'],
    ['list p0, history', 'root', '/api/log/?p=0&type=0'],
    ['list p0, last 7 days (Logs page)', 'root', `/api/log/?p=0&type=0&${week}`],
    ['list p5, last 7 days', 'root', `/api/log/?p=5&type=0&${week}`],
    ['list p0, username, 7 days', 'root', `/api/log/?p=0&type=0&username=user2&${week}`],
    ['list p0, light username, history', 'root', '/api/log/?p=0&type=0&username=user5000'],
    ['list p0, days 60–53 ago', 'root', `/api/log/?p=0&type=0&${past}`],
    ['list p3, top-ups, days 60–53 ago', 'root', `/api/log/?p=3&type=1&${past}`],
    ['list p0, channel, 7 days', 'root', `/api/log/?p=0&type=2&channel=7&${week}`],
    ['usage all, 7 days, UTC+8', 'root', `/api/log/usage?${usage()}`],
    ['usage all, 30 days, UTC−5', 'root', `/api/log/usage?${usage(30, -300)}`],
    ['usage all, 30 days, UTC+5:30', 'root', `/api/log/usage?${usage(30, 330)}`],
    ['usage heavy user, 30 days, UTC+5:30', 'root', `/api/log/usage?${usage(30, 330)}&username=user2`],
    ['usage channel, 7 days', 'root', `/api/log/usage?${usage()}&channel=3`],
    ['channels p0', 'root', '/api/channel/?p=0'],
    ['users p0', 'root', '/api/user/?p=0'],
    ['self stat, history', 'heavy', '/api/log/self/stat?type=0'],
    ['self stat, 7 days', 'heavy', `/api/log/self/stat?type=0&${week}`],
    ['self list p0, 7 days', 'heavy', `/api/log/self/?p=0&type=0&${week}`],
    ['self list p0, days 60–53 ago', 'heavy', `/api/log/self/?p=0&type=0&${past}`],
    ['self usage, 7 days, UTC+8', 'heavy', `/api/log/self/usage?${usage()}`],
    ['user dashboard', 'heavy', '/api/user/dashboard'],
    ['own keys p0', 'heavy', '/api/token/?p=0'],
    ['self stat, history (light user)', 'light', '/api/log/self/stat?type=0'],
    ['self list p0, 7 days (light user)', 'light', `/api/log/self/?p=0&type=0&${week}`],
    ['user dashboard (light user)', 'light', '/api/user/dashboard'],
  ];
};

/** @param {number[]} list @param {number} q */
const quantile = (list, q) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;
};

/**
 * @param {import('./console-scale-db.mjs').ScaleDb} db
 * @returns {Promise<{ watermark: number, newest: number }>}
 */
const rollupProgress = async (db) => {
  const [state] = await db.all("SELECT last_id FROM sluice_log_rollup_state WHERE name = 'logs'");
  const newest = await db.all('SELECT id FROM logs ORDER BY id DESC LIMIT 2');
  const caughtUp = db.dialect === 'mysql' ? newest[1] : newest[0];
  return { watermark: Number(state?.['last_id'] ?? 0), newest: Number(caughtUp?.['id'] ?? 0) };
};

/**
 * One size on one dialect.
 * @param {keyof ReturnType<typeof scaleTargets>} dialect
 * @param {number} rows
 */
const runSize = async (dialect, rows) => {
  const name = `sluice_scale_${rows}`;
  const db = await scaleTargets(name, {
    pgAdmin: values['pg-admin'],
    mysqlHost: values['mysql-host'],
    mysqlPort: Number(values['mysql-port']),
    mysqlUser: values['mysql-user'],
    sqliteDir: values['sqlite-dir'],
  })[dialect](!values.reuse);
  const logDir = mkdtempSync(join(tmpdir(), 'sluice-scale-'));
  const start = async (/** @type {string} */ label) =>
    startSluice({
      port: Number(values.port),
      sqlitePath: db.sluiceEnv['SQLITE_PATH'] ?? join(logDir, 'unused.db'),
      logFile: join(logDir, `sluice-${label}.log`),
      env: db.sluiceEnv,
      main: values.main,
    });
  try {
    let loadSeconds = 0;
    let logSeconds = 0;
    if (!values.reuse) {
      // The schema: Sluice's own first start on the empty database (root, migrations, console indexes).
      await stopSluice(await start('schema'));
      const now = Math.floor(Date.now() / 1000);
      const loadStarted = performance.now();
      await loadAccounts(db, bcrypt.hashSync(PASSWORD, 10), now);
      logSeconds = await loadLogs(db, rows, now);
      if (dialect === 'postgres') await db.run('ANALYZE');
      loadSeconds = Math.round(performance.now() - loadStarted) / 1000;
    }
    /** @type {string[]} */
    const notes = [];
    if (values.fold && dialect !== 'mysql') {
      // Sluice's own backfill for a while (its rate), then the rest folded by its job without rests.
      const before = await rollupProgress(db);
      await db.close();
      const backfilling = await start('backfill');
      const seconds = Number(values['fold-after']);
      await sleep(seconds * 1000);
      const after = await rollupProgress(db);
      await db.close();
      await stopSluice(backfilling);
      const rate = (after.watermark - before.watermark) / seconds;
      const left = db.sluiceEnv['SQLITE_PATH']
        ? await foldSqlite(db.sluiceEnv['SQLITE_PATH'], values.main, 1_000_000)
        : await foldPostgres(db.sluiceEnv['SQL_DSN'] ?? '', values.main, 1_000_000);
      notes.push(
        `Sluice's own backfill: ${after.watermark - before.watermark} rows in ${seconds} s (${Math.round(rate)} rows/s:` +
          ` ${Math.round(after.newest / rate / 60)} min for the whole log); the other ${left.rows} folded by its job` +
          ` without rests in 1M-row chunks in ${left.seconds} s`,
      );
    }
    await db.close();
    const sluice = await start('measure');
    try {
      const backfillStarted = performance.now();
      for (;;) {
        const { watermark, newest } = await rollupProgress(db);
        if (watermark >= newest) break;
        await sleep(1000);
      }
      const backfillSeconds = Math.round(performance.now() - backfillStarted) / 1000;
      await db.close();
      // The backfill's upserts leave dead row versions in the cubes (several per live row at 10M);
      // autovacuum clears them on a stock server, but a test server may run with autovacuum off.
      if (dialect === 'postgres') await db.run('VACUUM (ANALYZE)');
      await db.close();
      const cookies = {
        root: await signIn('root', '123456'),
        heavy: await signIn('user2'),
        light: await signIn(`user${USERS}`),
      };
      const measureNow = Math.floor(Date.now() / 1000);
      /** @type {{ read: string, who: string, bytes: number, p50: number, p95: number }[]} */
      const results = [];
      for (const [read, who, path] of consoleReads(measureNow)) {
        let bytes = 0;
        for (let round = 0; round < warmup; round += 1)
          ({ bytes } = await call(path, { cookie: cookies[who] }));
        /** @type {number[]} */
        const times = [];
        for (let round = 0; round < samples; round += 1) {
          const started = performance.now();
          await call(path, { cookie: cookies[who] });
          times.push(performance.now() - started);
        }
        results.push({ read, who, bytes, p50: quantile(times, 0.5), p95: quantile(times, 0.95) });
      }
      return { dialect, rows, loadSeconds, logSeconds, backfillSeconds, notes, results };
    } finally {
      await stopSluice(sluice);
    }
  } finally {
    await db.close();
    if (!values.keep) await db.drop();
  }
};

/** @param {Awaited<ReturnType<typeof runSize>>} run */
const report = (run) => {
  const ms = (/** @type {number} */ value) => value.toFixed(1);
  const lines = [
    `## ${run.dialect}, ${run.rows.toLocaleString('en')} log rows (${USERS} users, ${HEAVY} heavy, ${2 * USERS} keys)`,
    `load ${run.loadSeconds} s (logs ${run.logSeconds} s), roll-up backfill ${run.backfillSeconds} s`,
    ...run.notes,
    '',
    '| read | as | answer bytes | p50 ms | p95 ms |',
    '|---|---|---:|---:|---:|',
    ...run.results.map(
      (row) =>
        `| ${row.read} | ${row.who} | ${row.bytes} | ${ms(row.p50)} | ${ms(row.p95)}${row.p95 > 200 ? ' ✗' : ''} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n\n`);
};

const main = async () => {
  const dialect = /** @type {'sqlite' | 'postgres' | 'mysql'} */ (values.db);
  if (!['sqlite', 'postgres', 'mysql'].includes(dialect)) throw new Error(`--db ${values.db}?`);
  if (!existsSync(values.main))
    execFileSync('npx', ['tsc', '-b', 'server/tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  process.stdout.write(
    `console-scale: ${new Date().toISOString()}, load ${execFileSync('uptime').toString().trim()}\n\n`,
  );
  const server = {
    mysqlHost: values['mysql-host'],
    mysqlPort: Number(values['mysql-port']),
    mysqlUser: values['mysql-user'],
  };
  const pool =
    dialect === 'mysql' ? await mysqlBufferPool(server, Number(values['mysql-buffer-pool'])) : undefined;
  if (pool) process.stdout.write(`InnoDB buffer pool: ${pool.now} MiB (the server's was ${pool.before})\n\n`);
  try {
    for (const rows of values.rows.split(',').map(Number)) report(await runSize(dialect, rows));
  } finally {
    if (pool && pool.now !== pool.before) await mysqlBufferPool(server, pool.before);
  }
};

process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});
main().catch((error) => {
  killAll();
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
