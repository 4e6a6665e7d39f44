import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { URL, fileURLToPath } from 'node:url';
import { fetch } from 'undici';
import { startNode, stopChild } from './children.mjs';

const MAIN = fileURLToPath(new URL('../server/dist/main.js', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The node flags `npm start` runs Sluice with (the root package.json's `serve` script), so the bench
 * measures Sluice as it is run.
 * @returns {string[]}
 */
export const startFlags = () => {
  /** @type {unknown} */
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const scripts =
    typeof manifest === 'object' && manifest !== null && 'scripts' in manifest ? manifest.scripts : undefined;
  const serve =
    typeof scripts === 'object' && scripts !== null && 'serve' in scripts && typeof scripts.serve === 'string'
      ? scripts.serve
      : '';
  const match = /^node((?: --\S+)*) server\/dist\/main\.js$/.exec(serve);
  if (!match) throw new Error(`the serve script is not "node [flags] server/dist/main.js": ${serve}`);
  return (match[1] ?? '').split(' ').filter((flag) => flag !== '');
};

/** The relay key of root, created on the first start by INITIAL_ROOT_TOKEN. */
export const ROOT_KEY = 'sk-benchRootKey0123456789abcdefghij';
/** The model the benchmark asks for; the bench channel serves it at the top priority. */
export const BENCH_MODEL = 'gpt-3.5-turbo';
/** The model of the bench's Anthropic channel (the same double, its Messages API). */
export const BENCH_CLAUDE_MODEL = 'claude-bench';
/** The model of the bench's AWS Bedrock channel (Converse, SigV4-signed, on the same double). */
export const BENCH_BEDROCK_MODEL = 'amazon.nova-micro-v1:0';
/** Priority of the bench channel; populated channels that also serve the model sit below it. */
export const BENCH_PRIORITY = 10;

/**
 * @typedef {object} SluiceOptions
 * @property {number} port
 * @property {string} sqlitePath
 * @property {string} logFile  Sluice's stdout and stderr (pino writes a line per request)
 * @property {string[]} [nodeFlags]  e.g. --cpu-prof
 * @property {string} [main]  the entry to run instead of server/dist/main.js (BENCH_SLUICE_MAIN)
 * @property {Record<string, string>} [env]  more environment for Sluice (BENCH_SLUICE_ENV)
 * @property {string} [node]  the Node binary (default: this one's)
 */

/**
 * `BENCH_SLUICE_ENV="A=1 B=2"`: variables added to Sluice's environment, e.g. to bench an option
 * off against the same build with it on.
 * @param {string | undefined} text
 * @returns {Record<string, string>}
 */
export const parseSluiceEnv = (text) => {
  /** @type {Record<string, string>} */
  const env = {};
  for (const pair of (text ?? '').split(/\s+/).filter((part) => part !== '')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_SLUICE_ENV: "${pair}" is not NAME=value`);
    env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return env;
};

/**
 * Starts `node server/dist/main.js` (or `options.main`) on a SQLite file, rate limits off, billing and logging on (the
 * defaults), and waits until /api/status answers.
 * @param {SluiceOptions} options
 * @returns {Promise<import('./children.mjs').Child>}
 */
export const startSluice = async (options) => {
  const child = startNode('sluice', [...startFlags(), ...(options.nodeFlags ?? []), options.main ?? MAIN], {
    cwd: ROOT,
    logFile: options.logFile,
    relay: true,
    ...(options.node ? { node: options.node } : {}),
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      NODE_ENV: 'production',
      PORT: String(options.port),
      SQLITE_PATH: options.sqlitePath,
      SESSION_SECRET: 'bench-session-secret-0123456789',
      GLOBAL_API_RATE_LIMIT: '0',
      GLOBAL_WEB_RATE_LIMIT: '0',
      CRITICAL_RATE_LIMIT: '0',
      INITIAL_ROOT_TOKEN: ROOT_KEY,
      ...options.env,
    },
  });
  let exited = false;
  child.exited.then(
    () => {
      exited = true;
    },
    () => undefined,
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`Sluice exited during start-up (see its log: ${options.logFile})`);
    try {
      const response = await fetch(`http://127.0.0.1:${options.port}/api/status`);
      await response.arrayBuffer();
      if (response.ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopChild(child, 'SIGKILL');
      throw new Error(`Sluice did not answer /api/status within 60 s (see ${options.logFile})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/**
 * Stops Sluice gracefully (SIGTERM: it waits for pending settlements, writes a --cpu-prof profile).
 * @param {import('./children.mjs').Child} child
 */
export const stopSluice = (child) => stopChild(child, 'SIGTERM', 20_000);

/**
 * Calls the management API and fails on anything but `{success: true}`.
 * @param {string} origin
 * @param {string} path
 * @param {{ method?: string, cookie?: string, body?: unknown }} options
 * @returns {Promise<Response>}
 */
export const callApi = async (origin, path, options) => {
  const response = await fetch(origin + path, {
    method: options.method ?? 'GET',
    headers: {
      'content-type': 'application/json',
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  /** @type {unknown} */
  let envelope;
  try {
    envelope = JSON.parse(text);
  } catch {
    envelope = undefined;
  }
  const success =
    typeof envelope === 'object' && envelope !== null && 'success' in envelope && envelope.success;
  if (success !== true)
    throw new Error(`${options.method ?? 'GET'} ${path} failed: ${response.status} ${text.slice(0, 300)}`);
  return response;
};

/**
 * Logs in as root / 123456.
 * @param {string} origin  Sluice's origin
 * @returns {Promise<string>} the session cookie
 */
export const signIn = async (origin) => {
  const login = await callApi(origin, '/api/user/login', {
    method: 'POST',
    body: { username: 'root', password: '123456' },
  });
  const cookie = login.headers
    .getSetCookie()
    .map((line) => line.split(';')[0] ?? '')
    .filter((pair) => pair.startsWith('session='))
    .join('; ');
  if (cookie === '') throw new Error('login answered no session cookie');
  return cookie;
};

/**
 * How the bench model is routed: by how many channels of one priority, and whether conversation
 * affinity is on.
 * @typedef {object} Routing
 * @property {number} channels
 * @property {boolean} affinity
 */

/**
 * First-start setup through the admin API, as an operator would: log in as root / 123456 (session
 * cookie) and create the bench channel (OpenAI type, pointing at the double, serving BENCH_MODEL in
 * group default), and `routing.channels - 1` more serving BENCH_MODEL beside it (each with a key of
 * its own, the same double behind); with `routing.affinity`, ConversationAffinityEnabled on. Root's
 * key comes from INITIAL_ROOT_TOKEN: unlimited quota, every model.
 * @param {string} origin  Sluice's origin
 * @param {string} upstreamOrigin  the double's origin
 * @param {Routing} [routing]
 */
export const setUpSluice = async (origin, upstreamOrigin, routing = { channels: 1, affinity: false }) => {
  const cookie = await signIn(origin);
  await callApi(origin, '/api/channel/', {
    method: 'POST',
    cookie,
    body: {
      type: 1,
      name: 'bench-upstream',
      key: 'sk-bench-upstream',
      base_url: upstreamOrigin,
      // The double spaces the slow model's streams out (sweeps.mjs) and makes the long one's long (soak.mjs).
      models: `${BENCH_MODEL},${BENCH_MODEL}-slow,${BENCH_MODEL}-long`,
      group: 'default',
      priority: BENCH_PRIORITY,
    },
  });
  for (let index = 2; index <= routing.channels; index += 1)
    await callApi(origin, '/api/channel/', {
      method: 'POST',
      cookie,
      body: {
        type: 1,
        name: `bench-upstream-${index}`,
        key: `sk-bench-upstream-${index}`,
        base_url: upstreamOrigin,
        models: BENCH_MODEL,
        group: 'default',
        priority: BENCH_PRIORITY,
      },
    });
  if (routing.affinity)
    await callApi(origin, '/api/option/', {
      method: 'PUT',
      cookie,
      body: { key: 'ConversationAffinityEnabled', value: 'true' },
    });
  // Anthropic's Messages API on the same double: Anthropic clients' streams pass through to it.
  await callApi(origin, '/api/channel/', {
    method: 'POST',
    cookie,
    body: {
      type: 14,
      name: 'bench-anthropic',
      key: 'sk-ant-bench-upstream',
      base_url: upstreamOrigin,
      models: BENCH_CLAUDE_MODEL,
      group: 'default',
      priority: BENCH_PRIORITY,
    },
  });
  // AWS Bedrock on the same double: a native type whose requests are SigV4-signed and whose streams
  // are AWS's binary event stream, translated to OpenAI chunks.
  await callApi(origin, '/api/channel/', {
    method: 'POST',
    cookie,
    body: {
      type: 33,
      name: 'bench-bedrock',
      key: 'AKIABENCHBENCHBENCH0|benchSecretAccessKey0123456789abcdefghij|us-east-1',
      base_url: upstreamOrigin,
      models: BENCH_BEDROCK_MODEL,
      group: 'default',
      priority: BENCH_PRIORITY,
    },
  });
};
