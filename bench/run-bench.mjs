/**
 * `npm run bench`: Sluice's relay against a bare pass-through relay and the upstream double itself,
 * on a fresh database, then again after populating it (10k keys, 1k channels, 1M log rows).
 * See bench/README.md. Everything listens on 127.0.0.1; every child is killed by pid at the end,
 * on error and on Ctrl-C.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { fetch } from 'undici';
import Sqlite from 'better-sqlite3';
import { firstMessage, killAll, startNode, stopChild } from './children.mjs';
import { clientFormatTable, deriveClientFormats, measureClientFormats } from './client-formats.mjs';
import { measureLoad, measureSequential } from './measure.mjs';
import { populate } from './populate.mjs';
import { machine, memoryBytes } from './proc-stats.mjs';
import { derive, phaseTable, slowMachineNote, verdicts, verdictTable } from './report.mjs';
import { BENCH_MODEL, ROOT_KEY, setUpSluice, startSluice, stopSluice } from './sluice-process.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = fileURLToPath(new URL('results', import.meta.url));
const quick = process.env['BENCH_QUICK'] === '1';
const profile = process.env['BENCH_CPU_PROF'] === '1';
const sluiceMain = process.env['BENCH_SLUICE_MAIN'] || undefined;

const SETTINGS = {
  quick,
  connections: 50,
  loadSeconds: quick ? 3 : 10,
  warmupSeconds: quick ? 2 : 3,
  sequentialCount: quick ? 300 : 1000,
  sequentialWarmup: quick ? 50 : 200,
  coldKeys: quick ? 300 : 1000,
  populate: { tokens: 10_000, channels: 1_000, logs: quick ? 200_000 : 1_000_000 },
};

const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Hello! Please greet me back in one short sentence.' },
];
const CHAT_BODY = JSON.stringify({ model: BENCH_MODEL, messages: MESSAGES, max_tokens: 64 });
const STREAM_BODY = JSON.stringify({ model: BENCH_MODEL, messages: MESSAGES, max_tokens: 64, stream: true });

const started = Date.now();
/** @param {string} message */
const say = (message) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);

/**
 * The newest modification time under a folder (files only), 0 when it does not exist.
 * @param {string} folder
 * @param {(name: string) => boolean} keep
 * @returns {number}
 */
const newest = (folder, keep) => {
  if (!existsSync(folder)) return 0;
  let latest = 0;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && keep(entry.name))
      latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  return latest;
};

/** Builds with `npm run build` when server/dist or contract/dist is missing, or when BENCH_BUILD=1. */
const ensureBuilt = () => {
  const missing = !existsSync(join(ROOT, 'server/dist/main.js')) || !existsSync(join(ROOT, 'contract/dist'));
  if (missing || process.env['BENCH_BUILD'] === '1') {
    say('building (npm run build)…');
    const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
    if (result.status !== 0) throw new Error('npm run build failed');
    return;
  }
  const source = newest(
    join(ROOT, 'server/src'),
    (name) => name.endsWith('.ts') && !name.endsWith('.test.ts'),
  );
  if (source > newest(join(ROOT, 'server/dist'), (name) => name.endsWith('.js')))
    say('warning: server/src is newer than server/dist; run `npm run build` (or BENCH_BUILD=1) to bench it');
};

/** @returns {Promise<number>} a port free on 127.0.0.1 right now */
const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/**
 * Starts one of the bench's own servers and reads its port.
 * @param {string} name
 * @param {string[]} args
 * @returns {Promise<{ child: import('./children.mjs').Child, origin: string }>}
 */
const startHelper = async (name, args) => {
  const child = startNode(name, args, { ipc: true });
  const message = /** @type {{ port?: unknown }} */ (await firstMessage(child, 10_000));
  if (typeof message.port !== 'number') throw new Error(`${name} reported no port`);
  return { child, origin: `http://127.0.0.1:${message.port}` };
};

/**
 * Relay responses Sluice answered with 200, from its /metrics.
 * @param {string} origin
 * @returns {Promise<number>}
 */
const relayAnswers = async (origin) => {
  const text = await (await fetch(`${origin}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n'))
    if (
      line.startsWith('sluice_http_requests_total{') &&
      line.includes('surface="relay"') &&
      line.includes('status="200"')
    )
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
  return total;
};

/**
 * @param {string} sqlitePath
 * @returns {number}
 */
const consumeLogRows = (sqlitePath) => {
  const db = new Sqlite(sqlitePath, { readonly: true });
  try {
    return /** @type {{ n: number }} */ (db.prepare('SELECT COUNT(*) AS n FROM logs WHERE type = 2').get()).n;
  } finally {
    db.close();
  }
};

/**
 * One request of each kind through Sluice before measuring: proves the setup and the billing path.
 * @param {string} origin
 */
const checkSluice = async (origin) => {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${ROOT_KEY}` };
  const plain = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers, body: CHAT_BODY });
  const json = /** @type {{ usage?: { total_tokens?: unknown } }} */ (await plain.json());
  if (plain.status !== 200 || typeof json.usage?.total_tokens !== 'number')
    throw new Error(`Sluice answered ${plain.status}: ${JSON.stringify(json).slice(0, 300)}`);
  const stream = await fetch(`${origin}/v1/chat/completions`, { method: 'POST', headers, body: STREAM_BODY });
  const text = await stream.text();
  if (stream.status !== 200 || !text.includes('data: [DONE]') || text.includes('"usage":{'))
    throw new Error(`Sluice stream answered ${stream.status}: ${text.slice(0, 300)}`);
};

/**
 * @typedef {object} Servers
 * @property {{ child: import('./children.mjs').Child, origin: string }} double
 * @property {{ child: import('./children.mjs').Child, origin: string }} bare
 * @property {string} sluiceOrigin
 */

/**
 * Every measurement of one phase, against the running processes.
 * @param {Servers} servers
 * @param {import('./children.mjs').Child} sluice
 * @param {string[] | undefined} coldKeys  keys never used yet (populated phase)
 * @returns {Promise<import('./report.mjs').PhaseResult>}
 */
const measurePhase = async (servers, sluice, coldKeys) => {
  /** @type {import('./measure.mjs').Target[]} */
  const targets = [
    { name: 'direct', url: `${servers.double.origin}/v1/chat/completions`, pid: servers.double.child.pid },
    { name: 'bare', url: `${servers.bare.origin}/v1/chat/completions`, pid: servers.bare.child.pid },
    { name: 'sluice', url: `${servers.sluiceOrigin}/v1/chat/completions`, pid: sluice.pid },
  ];
  /** @type {Record<string, import('./measure.mjs').LoadResult>} */
  const load = {};
  for (const target of targets) {
    say(`load: ${target.name}, ${SETTINGS.connections} connections, ${SETTINGS.loadSeconds} s`);
    load[target.name] = await measureLoad(target, {
      key: ROOT_KEY,
      body: CHAT_BODY,
      connections: SETTINGS.connections,
      seconds: SETTINGS.loadSeconds,
      warmupSeconds: SETTINGS.warmupSeconds,
    });
  }
  const sequentialOptions = {
    keys: () => ROOT_KEY,
    count: SETTINGS.sequentialCount,
    warmup: SETTINGS.sequentialWarmup,
  };
  say(`sequential: ${SETTINGS.sequentialCount} non-stream requests per target, interleaved`);
  const sequential = await measureSequential(targets, {
    ...sequentialOptions,
    body: CHAT_BODY,
    stream: false,
  });
  say(`sequential: ${SETTINGS.sequentialCount} stream requests per target, interleaved`);
  const stream = await measureSequential(targets, { ...sequentialOptions, body: STREAM_BODY, stream: true });
  /** @type {import('./report.mjs').PhaseResult} */
  const result = {
    load,
    sequential,
    stream,
    memory: {
      sluicePeakRssBytes: memoryBytes(sluice.pid, 'VmHWM'),
      sluiceRssBytes: memoryBytes(sluice.pid, 'VmRSS'),
      barePeakRssBytes: memoryBytes(servers.bare.child.pid, 'VmHWM'),
      doublePeakRssBytes: memoryBytes(servers.double.child.pid, 'VmHWM'),
    },
  };
  if (coldKeys) {
    say(`cold keys: ${SETTINGS.coldKeys} sequential requests, each with a key never used before`);
    result.coldKeys = await measureSequential(
      [pickTarget(targets, 'direct'), pickTarget(targets, 'sluice')],
      {
        keys: (round) => (round < 0 ? ROOT_KEY : `sk-${coldKeys[round] ?? ''}`),
        count: Math.min(SETTINGS.coldKeys, coldKeys.length),
        warmup: 0,
        body: CHAT_BODY,
        stream: false,
      },
    );
    result.memory.sluicePeakRssBytes = memoryBytes(sluice.pid, 'VmHWM');
  }
  return result;
};

/**
 * @param {import('./measure.mjs').Target[]} targets
 * @param {string} name
 * @returns {import('./measure.mjs').Target}
 */
const pickTarget = (targets, name) => {
  const target = targets.find((candidate) => candidate.name === name);
  if (!target) throw new Error(`no target ${name}`);
  return target;
};

/**
 * One Sluice run: start it, measure, check what it logged, stop it.
 * @param {Servers} servers
 * @param {{ port: number, sqlitePath: string, logFile: string, phase: string, setUp: boolean, coldKeys?: string[] }} options
 */
const sluiceRun = async (servers, options) => {
  const logsBefore = options.setUp ? 0 : consumeLogRows(options.sqlitePath);
  const nodeFlags = profile
    ? // One profile per thread (Node names them CPU.<date>.<time>.<pid>.<thread>.<seq>): the relay's
      // is thread 0; the SQLite worker threads have their own.
      ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles', options.phase)}`]
    : [];
  say(`starting Sluice (${options.phase})`);
  const sluice = await startSluice({ ...options, nodeFlags, ...(sluiceMain ? { main: sluiceMain } : {}) });
  try {
    if (options.setUp) await setUpSluice(servers.sluiceOrigin, servers.double.origin);
    await checkSluice(servers.sluiceOrigin);
    const phase = await measurePhase(servers, sluice, options.coldKeys);
    // Anthropic clients, once (on the fresh database): their cost does not depend on the data.
    const formats = options.coldKeys
      ? undefined
      : await measureClientFormats(
          {
            doubleOrigin: servers.double.origin,
            doublePid: servers.double.child.pid,
            sluiceOrigin: servers.sluiceOrigin,
            sluicePid: sluice.pid,
            key: ROOT_KEY,
          },
          SETTINGS,
          say,
        );
    const answered = await relayAnswers(servers.sluiceOrigin);
    await stopSluice(sluice);
    const logged = consumeLogRows(options.sqlitePath) - logsBefore;
    say(`Sluice answered ${answered} relay requests with 200 and wrote ${logged} consumption log rows`);
    return { phase, formats, billing: { relayAnswers: answered, consumeLogRows: logged } };
  } catch (error) {
    await stopChild(sluice, 'SIGKILL');
    throw error;
  }
};

const main = async () => {
  if (!sluiceMain) ensureBuilt();
  const before = machine();
  if ((before.loadAverage[0] ?? 0) > before.cpus / 2)
    say(
      `warning: load average ${before.loadAverage.join(' ')} on ${before.cpus} CPUs: other work will skew the figures`,
    );
  const work = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
  const sqlitePath = join(work, 'sluice.db');
  const logFile = join(work, 'sluice.log');
  const cleanUp = () => {
    killAll();
    if (process.env['BENCH_KEEP'] !== '1') rmSync(work, { recursive: true, force: true });
  };
  process.once('exit', cleanUp);
  for (const signal of /** @type {NodeJS.Signals[]} */ (['SIGINT', 'SIGTERM']))
    process.once(signal, () => {
      say(`${signal}: stopping every child`);
      process.exit(130);
    });
  try {
    const here = fileURLToPath(new URL('.', import.meta.url));
    const double = await startHelper('upstream double', [join(here, 'upstream-double.mjs')]);
    const bare = await startHelper('bare relay', [join(here, 'bare-relay.mjs'), double.origin]);
    const port = await freePort();
    /** @type {Servers} */
    const servers = { double, bare, sluiceOrigin: `http://127.0.0.1:${port}` };
    say(
      `double ${double.origin}, bare relay ${bare.origin}, Sluice ${servers.sluiceOrigin}, data in ${work}`,
    );

    const base = await sluiceRun(servers, { port, sqlitePath, logFile, phase: 'base', setUp: true });

    say(
      `populating: ${SETTINGS.populate.tokens} keys, ${SETTINGS.populate.channels} channels, ${SETTINGS.populate.logs} log rows`,
    );
    const filled = populate(sqlitePath, SETTINGS.populate, double.origin);
    say(`populated in ${JSON.stringify(filled.seconds)} s: ${JSON.stringify(filled.rows)}`);

    const populated = await sluiceRun(servers, {
      port,
      sqlitePath,
      logFile,
      phase: 'populated',
      setUp: false,
      coldKeys: filled.keys,
    });
    await stopChild(bare.child);
    await stopChild(double.child);

    const derived = { base: derive(base.phase), populated: derive(populated.phase) };
    const checks = verdicts(derived.base, derived.populated);
    const results = {
      measuredAt: new Date().toISOString(),
      runSeconds: Math.round((Date.now() - started) / 1000),
      machine: { ...machine(), loadAverageAtStart: before.loadAverage, node: process.version },
      settings: SETTINGS,
      phases: {
        base: { ...base.phase, billing: base.billing },
        populated: {
          ...populated.phase,
          billing: populated.billing,
          populate: { rows: filled.rows, seconds: filled.seconds },
        },
      },
      derived,
      verdicts: checks,
      clientFormats: base.formats && { ...base.formats, derived: deriveClientFormats(base.formats) },
    };
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);

    const out = [
      '',
      `Sluice relay benchmark — ${results.machine.cpus} CPUs (${results.machine.model}), Node ${process.version}${quick ? ', QUICK' : ''}`,
      `non-stream and stream chat completions of ${BENCH_MODEL}; billing and consumption logs on; rate limits off`,
      '',
      'Fresh database',
      phaseTable(base.phase, SETTINGS),
      '',
      `Populated database (+${SETTINGS.populate.tokens} keys, +${SETTINGS.populate.channels} channels, +${SETTINGS.populate.logs} log rows)`,
      phaseTable(populated.phase, SETTINGS),
      '',
      `billing check: fresh database, ${base.billing.relayAnswers} relay answers / ${base.billing.consumeLogRows} log rows; populated, ${populated.billing.relayAnswers} / ${populated.billing.consumeLogRows}`,
      `load average at start ${before.loadAverage.join(' ')}, at end ${results.machine.loadAverage.join(' ')}${sluiceMain ? `; Sluice entry ${sluiceMain}` : ''}`,
      '',
      ...(base.formats
        ? [
            'Anthropic clients (fresh database; CPU under load, first byte sequential)',
            clientFormatTable(base.formats),
            '',
          ]
        : []),
      'Targets',
      verdictTable(checks),
      ...(slowMachineNote(derived) === '' ? [] : [slowMachineNote(derived)]),
      '',
      `results: ${join(RESULTS, 'latest.json')}${profile ? `; CPU profiles in ${join(RESULTS, 'profiles')}` : ''}`,
      '',
    ];
    process.stdout.write(out.join('\n'));
  } catch (error) {
    say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    if (existsSync(logFile))
      process.stderr.write(
        `--- last lines of Sluice's log ---\n${readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n')}\n`,
      );
    say(
      `Sluice's log: ${logFile}${process.env['BENCH_KEEP'] === '1' ? '' : ' (deleted; BENCH_KEEP=1 keeps it)'}`,
    );
    process.exitCode = 1;
  } finally {
    killAll();
  }
};

await main();
