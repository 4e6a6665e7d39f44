/** The bench's helpers: building, ports, its own servers, reading Sluice's answers and logs, targets. */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import process from 'node:process';
import { fetch } from 'undici';
import Sqlite from 'better-sqlite3';
import { firstMessage, startNode } from './children.mjs';
import { CHAT_BODY, ROOT, STREAM_BODY, say } from './bench-settings.mjs';
import { ROOT_KEY } from './sluice-process.mjs';

/**
 * The newest modification time under a folder (files only), 0 when it does not exist.
 * @param {string} folder
 * @param {(name: string) => boolean} keep
 * @returns {number}
 */
export const newest = (folder, keep) => {
  if (!existsSync(folder)) return 0;
  let latest = 0;
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true }))
    if (entry.isFile() && keep(entry.name))
      latest = Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  return latest;
};

/** Builds with `npm run build` when server/dist or contract/dist is missing, or when BENCH_BUILD=1. */
export const ensureBuilt = () => {
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
export const freePort = () =>
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
export const startHelper = async (name, args, relay = false) => {
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
export const relayAnswers = async (origin, status = '200') => {
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
export const consumeLogRows = (sqlitePath) => {
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
export const checkSluice = async (origin) => {
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
export const helperTargets = (servers) => [
  { name: 'direct', url: `${servers.double.origin}/v1/chat/completions`, pid: servers.double.child.pid },
  { name: 'bare', url: `${servers.bare.origin}/v1/chat/completions`, pid: servers.bare.child.pid },
];

/**
 * A running Sluice as a target.
 * @param {{ instance: Instance, child: import('./children.mjs').Child }} sluice
 * @returns {import('./measure.mjs').Target}
 */
export const sluiceTarget = ({ instance, child }) => ({
  name: instance.name,
  url: `${instance.origin}/v1/chat/completions`,
  pid: child.pid,
});
