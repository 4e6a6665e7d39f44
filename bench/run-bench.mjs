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
import { dirname, join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { fetch } from 'undici';
import Sqlite from 'better-sqlite3';
import { PINNED, firstMessage, killAll, pinBench, startNode, stopChild } from './children.mjs';
import { measureClientFormats } from './client-formats.mjs';
import { measureLoadRounds, measureSequential } from './measure.mjs';
import { measurePromptSweep } from './prompt-sweep.mjs';
import { measureConcurrency } from './concurrency.mjs';
import { measureFlood, measureJitter } from './sweeps.mjs';
import { prepareNode24 } from './node24.mjs';
import { measurePeers, portkeyTarget, startPortkey } from './peers.mjs';
import { measureSoak } from './soak.mjs';
import { foldSqlite } from './console-scale-fold.mjs';
import { applyLimits, checkLimits, clearRedis, limitSwitches, switchesOf } from './limits.mjs';
import { populate } from './populate.mjs';
import { machine, memoryBytes } from './proc-stats.mjs';
import { summarize } from './summary.mjs';
import {
  BENCH_MODEL,
  ROOT_KEY,
  parseSluiceEnv,
  setUpSluice,
  startSluice,
  stopSluice,
} from './sluice-process.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS = fileURLToPath(new URL('results', import.meta.url));
const quick = process.env['BENCH_QUICK'] === '1';
const profile = process.env['BENCH_CPU_PROF'] === '1';
const sluiceMain = process.env['BENCH_SLUICE_MAIN'] || undefined;
const sluiceEnv = parseSluiceEnv(process.env['BENCH_SLUICE_ENV']);
// A second Sluice measured beside the first in the same run (its requests interleaved with the
// first's): BENCH_B_MAIN another build, BENCH_B_ENV other settings, or both.
const pairMain = process.env['BENCH_B_MAIN'] || undefined;
const pairEnv = parseSluiceEnv(process.env['BENCH_B_ENV']);
/** BENCH_B_NODE_FLAGS: node flags for Sluice B after the `serve` script's (a later flag wins). */
const pairFlags = (process.env['BENCH_B_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
// BENCH_NODE24=1: Sluice B is this build on Node 24 (node24.mjs prepares it).
const node24 = process.env['BENCH_NODE24'] === '1';
/**
 * BENCH_CHANNELS=4: the bench model served by 4 channels of one priority (the double behind each);
 * BENCH_AFFINITY=1: conversation affinity on (ConversationAffinityEnabled). BENCH_B_CHANNELS and
 * BENCH_B_AFFINITY set them for Sluice B alone (a paired run against the single channel).
 * @param {string | undefined} channels
 * @param {string | undefined} affinity
 * @returns {import('./sluice-process.mjs').Routing}
 */
const routingOf = (channels, affinity) => {
  const count = Number(channels ?? '1');
  if (!Number.isInteger(count) || count < 1 || count > 64) throw new Error('BENCH_CHANNELS: 1 to 64');
  return { channels: count, affinity: affinity === '1' };
};
const routing = routingOf(process.env['BENCH_CHANNELS'], process.env['BENCH_AFFINITY']);
const pairRouting = routingOf(
  process.env['BENCH_B_CHANNELS'] ?? process.env['BENCH_CHANNELS'],
  process.env['BENCH_B_AFFINITY'] ?? process.env['BENCH_AFFINITY'],
);
// BENCH_LIMITS / BENCH_B_LIMITS: limits and budgets on the bench's key and user, Redis on (limits.mjs).
const limitRun = limitSwitches();
const paired =
  limitRun.pairs ||
  pairMain !== undefined ||
  process.env['BENCH_B_ENV'] !== undefined ||
  pairFlags.length > 0 ||
  node24 ||
  process.env['BENCH_B_CHANNELS'] !== undefined ||
  process.env['BENCH_B_AFFINITY'] !== undefined;
/**
 * What to measure (BENCH_PARTS, comma-separated; all by default): `core` (load, sequential, stream,
 * cold keys, on a fresh then a populated database), `formats` (client formats and the signed native
 * type), `prompts` (the prompt sweep), `concurrency` (1–64 connections), `jitter` (slow streams),
 * `flood` (invalid keys), `peers` (Portkey beside Sluice); `soak` (10 minutes of long streams) only
 * when asked. BENCH_FORMATS=0 drops `formats` (a build from before the client formats cannot serve
 * them).
 */
const PARTS = new Set(
  (process.env['BENCH_PARTS'] ?? 'core,formats,prompts,concurrency,jitter,flood,peers')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !(part === 'formats' && process.env['BENCH_FORMATS'] === '0')),
);
for (const part of PARTS)
  if (!['core', 'formats', 'prompts', 'concurrency', 'jitter', 'flood', 'peers', 'soak'].includes(part))
    throw new Error(`BENCH_PARTS: unknown part ${part}`);

const SETTINGS = {
  quick,
  connections: 50,
  loadSeconds: quick ? 3 : 10,
  /** The load is measured in this many slices per target, the targets taking turns (measure.mjs). */
  loadRounds: Number(process.env['BENCH_LOAD_ROUNDS'] ?? (quick ? 1 : 5)),
  warmupSeconds: quick ? 2 : 3,
  sequentialCount: quick ? 300 : 1000,
  sequentialWarmup: quick ? 50 : 200,
  coldKeys: quick ? 300 : 1000,
  populate: { tokens: 10_000, channels: 1_000, logs: quick ? 200_000 : 1_000_000 },
};

if (!Number.isInteger(SETTINGS.loadRounds) || SETTINGS.loadRounds < 1)
  throw new Error(
    `BENCH_LOAD_ROUNDS: a whole number of rounds, 1 or more (got ${process.env['BENCH_LOAD_ROUNDS']})`,
  );

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
 * @param {boolean} [relay]  a relay under test (BENCH_PIN=1: on the relays' core)
 * @returns {Promise<{ child: import('./children.mjs').Child, origin: string }>}
 */
const startHelper = async (name, args, relay = false) => {
  const child = startNode(name, args, { ipc: true, relay });
  const message = /** @type {{ port?: unknown }} */ (await firstMessage(child, 10_000));
  if (typeof message.port !== 'number') throw new Error(`${name} reported no port`);
  return { child, origin: `http://127.0.0.1:${message.port}` };
};

/**
 * Relay responses Sluice answered with `status`, from its /metrics.
 * @param {string} origin
 * @param {string} [status]
 * @returns {Promise<number>}
 */
const relayAnswers = async (origin, status = '200') => {
  const text = await (await fetch(`${origin}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n'))
    if (
      line.startsWith('sluice_http_requests_total{') &&
      line.includes('surface="relay"') &&
      line.includes(`status="${status}"`)
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
 * One Sluice of the run: `sluice`, and `sluice-b` when paired.
 * @typedef {object} Instance
 * @property {string} name
 * @property {number} port
 * @property {string} origin
 * @property {string} sqlitePath
 * @property {string} logFile
 * @property {string | undefined} main
 * @property {Record<string, string>} env
 * @property {string | undefined} node  the Node binary (undefined: the bench's own)
 * @property {string[]} flags  node flags after the serve script's
 * @property {import('./sluice-process.mjs').Routing} routing  its channels on the bench model, affinity
 * @property {import('./limits.mjs').LimitKind} limits  limits and budgets on the bench's key and user (BENCH_LIMITS)
 * @property {string | undefined} redisUrl  its Redis (REDIS_CONN_STRING), undefined without
 */

/**
 * The direct call and the bare relay as targets.
 * @param {Servers} servers
 * @returns {import('./measure.mjs').Target[]}
 */
const helperTargets = (servers) => [
  { name: 'direct', url: `${servers.double.origin}/v1/chat/completions`, pid: servers.double.child.pid },
  { name: 'bare', url: `${servers.bare.origin}/v1/chat/completions`, pid: servers.bare.child.pid },
];

/**
 * A running Sluice as a target.
 * @param {{ instance: Instance, child: import('./children.mjs').Child }} sluice
 * @returns {import('./measure.mjs').Target}
 */
const sluiceTarget = ({ instance, child }) => ({
  name: instance.name,
  url: `${instance.origin}/v1/chat/completions`,
  pid: child.pid,
});

/**
 * Every measurement of one phase, against the running processes: the direct call, the bare relay
 * and each Sluice (two when paired, their sequential requests interleaved with the others').
 * @param {Servers} servers
 * @param {{ instance: Instance, child: import('./children.mjs').Child }[]} sluices
 * @param {string[] | undefined} coldKeys  keys never used yet (populated phase)
 * @returns {Promise<import('./report.mjs').PhaseResult>}
 */
const measurePhase = async (servers, sluices, coldKeys) => {
  const targets = [...helperTargets(servers), ...sluices.map(sluiceTarget)];
  const load = await measureLoadRounds(
    targets,
    {
      key: ROOT_KEY,
      body: CHAT_BODY,
      connections: SETTINGS.connections,
      seconds: SETTINGS.loadSeconds,
      warmupSeconds: SETTINGS.warmupSeconds,
      rounds: SETTINGS.loadRounds,
    },
    say,
  );
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
  const peaks = () =>
    Object.fromEntries(
      sluices.map(({ instance, child }) => [instance.name, memoryBytes(child.pid, 'VmHWM')]),
    );
  const [first] = sluices;
  if (!first) throw new Error('no Sluice to measure');
  /** @type {import('./report.mjs').PhaseResult} */
  const result = {
    load,
    sequential,
    stream,
    memory: {
      sluicePeakRssBytes: memoryBytes(first.child.pid, 'VmHWM'),
      sluiceRssBytes: memoryBytes(first.child.pid, 'VmRSS'),
      barePeakRssBytes: memoryBytes(servers.bare.child.pid, 'VmHWM'),
      doublePeakRssBytes: memoryBytes(servers.double.child.pid, 'VmHWM'),
      peakRssBytesOf: peaks(),
    },
  };
  if (coldKeys) {
    say(`cold keys: ${SETTINGS.coldKeys} sequential requests, each with a key never used before`);
    result.coldKeys = await measureSequential(
      targets.filter((target) => target.name !== 'bare'),
      {
        keys: (round) => (round < 0 ? ROOT_KEY : `sk-${coldKeys[round] ?? ''}`),
        count: Math.min(SETTINGS.coldKeys, coldKeys.length),
        warmup: 0,
        body: CHAT_BODY,
        stream: false,
      },
    );
    result.memory.sluicePeakRssBytes = memoryBytes(first.child.pid, 'VmHWM');
    result.memory.peakRssBytesOf = peaks();
  }
  return result;
};

/**
 * Portkey started beside the others, measured with them, stopped.
 * @param {Servers} servers
 * @param {import('./measure.mjs').Target[]} targets  direct, bare, Sluice
 */
const measureWithPortkey = async (servers, targets) => {
  const port = await freePort();
  const child = await startPortkey(RESULTS, port, join(RESULTS, 'portkey.log'), say);
  try {
    return await measurePeers(
      [...targets, portkeyTarget(port, child.pid, servers.double.origin)],
      { key: ROOT_KEY, ...SETTINGS },
      say,
    );
  } finally {
    await stopChild(child);
  }
};

/**
 * Starts one Sluice of the run.
 * @param {Instance} instance
 * @param {string} phase
 */
const startInstance = (instance, phase) => {
  const nodeFlags = [
    ...instance.flags,
    ...(profile
      ? // One profile per thread (Node names them CPU.<date>.<time>.<pid>.<thread>.<seq>): the relay's
        // is thread 0; the SQLite worker threads have their own.
        ['--cpu-prof', `--cpu-prof-dir=${join(RESULTS, 'profiles', phase, instance.name)}`]
      : []),
  ];
  say(`starting ${instance.name} (${phase})`);
  return startSluice({
    port: instance.port,
    sqlitePath: instance.sqlitePath,
    logFile: instance.logFile,
    nodeFlags,
    env: instance.env,
    ...(instance.main ? { main: instance.main } : {}),
    ...(instance.node ? { node: instance.node } : {}),
  });
};

/**
 * One phase: start every Sluice, measure, check what each logged, stop them.
 * @param {Servers} servers
 * @param {Instance[]} instances
 * @param {{ phase: string, setUp: boolean, coldKeys?: string[] }} options
 */
const sluiceRun = async (servers, instances, options) => {
  const logsBefore = instances.map((instance) => (options.setUp ? 0 : consumeLogRows(instance.sqlitePath)));
  /** @type {{ instance: Instance, child: import('./children.mjs').Child }[]} */
  const sluices = [];
  try {
    for (const instance of instances) {
      sluices.push({ instance, child: await startInstance(instance, options.phase) });
      if (options.setUp) await setUpSluice(instance.origin, servers.double.origin, instance.routing);
      if (options.setUp && instance.limits !== 'off')
        await applyLimits(instance.origin, instance.sqlitePath, instance.limits);
      await checkSluice(instance.origin);
      if (options.setUp)
        say(`${instance.name}: ${await checkLimits(instance.origin, instance.sqlitePath, instance.limits)}`);
    }
    const phase = PARTS.has('core') ? await measurePhase(servers, sluices, options.coldKeys) : undefined;
    const [first] = sluices;
    // The parts measured once (fresh database): their cost does not depend on the data.
    const once = options.setUp;
    const prompts =
      once && PARTS.has('prompts')
        ? await measurePromptSweep(
            [...helperTargets(servers), ...sluices.map(sluiceTarget)],
            { key: ROOT_KEY, quick },
            say,
          )
        : undefined;
    const targets = [...helperTargets(servers), ...sluices.map(sluiceTarget)];
    const concurrency =
      once && PARTS.has('concurrency')
        ? await measureConcurrency(targets, { key: ROOT_KEY, quick }, say)
        : undefined;
    const jitter =
      once && PARTS.has('jitter') ? await measureJitter(targets, { key: ROOT_KEY, quick }, say) : undefined;
    const [direct] = targets;
    const flood =
      once && PARTS.has('flood') && first && direct
        ? await measureFlood(
            direct,
            sluiceTarget(first),
            { key: ROOT_KEY, quick, relayedCpuMicros: phase?.load[first.instance.name]?.cpuMicrosPerRequest },
            say,
          )
        : undefined;
    const peers =
      once && PARTS.has('peers') && first
        ? await measureWithPortkey(servers, [...helperTargets(servers), sluiceTarget(first)])
        : undefined;
    const soak =
      once && PARTS.has('soak') && first
        ? await measureSoak(
            sluiceTarget(first),
            { key: ROOT_KEY, minutes: Number(process.env['BENCH_SOAK_MINUTES'] ?? 10) },
            say,
          )
        : undefined;
    // Client formats and the signed native type: on the first Sluice.
    const formats =
      !once || !PARTS.has('formats') || !first
        ? undefined
        : await measureClientFormats(
            {
              doubleOrigin: servers.double.origin,
              doublePid: servers.double.child.pid,
              sluiceOrigin: first.instance.origin,
              sluicePid: first.child.pid,
              key: ROOT_KEY,
            },
            SETTINGS,
            say,
          );
    /** @type {Record<string, { relayAnswers: number, consumeLogRows: number }>} */
    const billing = {};
    /** @type {string[]} */
    const refused = [];
    for (const [index, { instance, child }] of sluices.entries()) {
      const answered = await relayAnswers(instance.origin);
      const tooMany = await relayAnswers(instance.origin, '429');
      if (tooMany > 0) refused.push(`${instance.name} answered ${tooMany} relay requests with 429`);
      await stopSluice(child);
      const logged = consumeLogRows(instance.sqlitePath) - (logsBefore[index] ?? 0);
      say(
        `${instance.name} answered ${answered} relay requests with 200 and wrote ${logged} consumption log rows`,
      );
      billing[instance.name] = { relayAnswers: answered, consumeLogRows: logged };
    }
    sluices.length = 0;
    // A refused request is not the relay's cost: the run measured something else (limits too low).
    if (refused.length > 0)
      throw new Error(`${refused.join('; ')} (${options.phase}): the figures are invalid`);
    return { phase, formats, prompts, concurrency, jitter, flood, peers, soak, billing };
  } finally {
    for (const { child } of sluices) await stopChild(child, 'SIGKILL');
  }
};

const main = async () => {
  if (!sluiceMain) ensureBuilt();
  const before = machine();
  if ((before.loadAverage[0] ?? 0) > before.cpus / 2)
    say(
      `warning: load average ${before.loadAverage.join(' ')} on ${before.cpus} CPUs: other work will skew the figures`,
    );
  pinBench();
  if (PINNED) say('BENCH_PIN=1: the relays on core 1, the client and the double on core 0');
  const work = mkdtempSync(join(tmpdir(), 'sluice-bench-'));
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
  /** @type {Instance[]} */
  const instances = [];
  /** @type {string[]} */
  const redisUrls = [0, 1].flatMap((index) => limitRun.redisUrl(index) ?? []);
  try {
    for (const url of redisUrls) say(`Redis ${url}: cleared ${await clearRedis(url)} sluice:* keys`);
    const here = fileURLToPath(new URL('.', import.meta.url));
    const double = await startHelper('upstream double', [join(here, 'upstream-double.mjs')]);
    const bare = await startHelper('bare relay', [join(here, 'bare-relay.mjs'), double.origin], true);
    /** @type {[string, string | undefined, Record<string, string>, string | undefined][]} */
    const kinds = [['sluice', sluiceMain, sluiceEnv, undefined]];
    if (node24) {
      const prepared = prepareNode24(ROOT, RESULTS, say);
      say(`Node 24: Sluice B runs ${prepared.main} on Node ${prepared.version}`);
      kinds.push(['sluice-b', prepared.main, { ...sluiceEnv, ...pairEnv }, prepared.node]);
    } else if (paired)
      kinds.push(['sluice-b', pairMain ?? sluiceMain, { ...sluiceEnv, ...pairEnv }, undefined]);
    for (const [index, [name, main, env, node]] of kinds.entries()) {
      // Each Sluice in a folder of its own: its SQLite file, its billing journal beside it, its log.
      const folder = join(work, name);
      mkdirSync(folder);
      const port = await freePort();
      const redisUrl = limitRun.redisUrl(index);
      instances.push({
        name,
        port,
        origin: `http://127.0.0.1:${port}`,
        sqlitePath: join(folder, 'sluice.db'),
        logFile: join(folder, 'sluice.log'),
        main,
        // Each its own Redis database, so their limit windows stay apart (BENCH_SLUICE_ENV may override).
        env: redisUrl ? { REDIS_CONN_STRING: redisUrl, ...env } : env,
        node,
        flags: name === 'sluice' ? [] : pairFlags,
        routing: name === 'sluice' ? routing : pairRouting,
        limits: name === 'sluice' ? limitRun.limits : limitRun.pairLimits,
        redisUrl,
      });
    }
    /** @type {Servers} */
    const servers = { double, bare, sluiceOrigin: instances[0]?.origin ?? '' };
    say(
      `double ${double.origin}, bare relay ${bare.origin}, ${instances.map((instance) => `${instance.name} ${instance.origin}`).join(', ')}, data in ${work}`,
    );
    for (const instance of instances) say(`${instance.name}: ${switchesOf(instance)}`);

    const base = await sluiceRun(servers, instances, { phase: 'base', setUp: true });

    /** @type {Awaited<ReturnType<typeof sluiceRun>> | undefined} */
    let populated;
    /** @type {import('./populate.mjs').PopulateResult | undefined} */
    let filled;
    if (PARTS.has('core')) {
      say(
        `populating: ${SETTINGS.populate.tokens} keys, ${SETTINGS.populate.channels} channels, ${SETTINGS.populate.logs} log rows`,
      );
      const [first, ...others] = instances;
      if (!first) throw new Error('no Sluice');
      const rows = populate(first.sqlitePath, SETTINGS.populate, double.origin);
      filled = rows;
      // The same rows and cold keys for the second Sluice, in its own database (its build may have
      // other migrations than the first's).
      for (const other of others) populate(other.sqlitePath, SETTINGS.populate, double.origin, rows.keys);
      say(`populated in ${JSON.stringify(rows.seconds)} s: ${JSON.stringify(rows.rows)}`);
      // The rows were written straight into the file, as a one-api database holds them: a build with
      // roll-ups (issue 22) would fold them in while the phase runs and the phase would measure that
      // backfill, not the relay. Each such build's own job folds them first, here.
      for (const instance of instances) {
        const main = instance.main ?? join(ROOT, 'server/dist/main.js');
        if (!existsSync(join(dirname(main), 'services', 'log-rollup-job.js'))) continue;
        const folded = await foldSqlite(instance.sqlitePath, main, 1_000_000);
        say(`${instance.name}: folded ${folded.rows} log ids into its roll-ups in ${folded.seconds} s`);
      }
      populated = await sluiceRun(servers, instances, {
        phase: 'populated',
        setUp: false,
        coldKeys: rows.keys,
      });
    }
    await stopChild(bare.child);
    await stopChild(double.child);

    const { results, text } = summarize({
      started,
      before,
      settings: { ...SETTINGS, parts: [...PARTS], routing, ...(paired ? { pairRouting } : {}) },
      instances,
      base,
      populated,
      filled,
      paired,
      profile,
      resultsDir: RESULTS,
    });
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(text);
  } catch (error) {
    say(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    for (const { name, logFile } of instances) {
      if (existsSync(logFile))
        process.stderr.write(
          `--- last lines of ${name}'s log ---\n${readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n')}\n`,
        );
      say(
        `${name}'s log: ${logFile}${process.env['BENCH_KEEP'] === '1' ? '' : ' (deleted; BENCH_KEEP=1 keeps it)'}`,
      );
    }
    process.exitCode = 1;
  } finally {
    killAll();
    for (const url of redisUrls)
      await clearRedis(url).catch((/** @type {unknown} */ error) => say(`Redis ${url}: ${String(error)}`));
  }
};

await main();
