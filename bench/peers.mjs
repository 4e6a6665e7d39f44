/**
 * A peer gateway in the same run: Portkey's open-source gateway (`@portkey-ai/gateway`, Node, from
 * npm), the gateway of the field that runs here. It is installed on first use into
 * bench/results/peers/ (gitignored) and started headless on loopback; requests name the double as
 * their OpenAI-compatible custom host, as Portkey's documentation shows. Measured beside the direct
 * call, the bare relay and Sluice: CPU per request under load and added latency, plain answers
 * (see PORTKEY for why not streams).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetch } from 'undici';
import { startNode } from './children.mjs';
import { measureLoad, measureSequential } from './measure.mjs';
import { table } from './report.mjs';
import { BENCH_MODEL } from './sluice-process.mjs';

/**
 * The newest version that relays here: 1.15.2 (the latest) answers every request through a custom
 * host with a 500 (its `updateHeaders` appends to a fetch response's immutable headers: "TypeError:
 * immutable"); 1.9.8 relays plain answers but answers streams with a 500 too, so only plain answers
 * are measured.
 */
export const PORTKEY = '@portkey-ai/gateway@1.9.8';

/**
 * @param {string} results  bench/results
 * @param {(message: string) => void} say
 * @returns {string} Portkey's server script
 */
const installPortkey = (results, say) => {
  const home = join(results, 'peers');
  const script = join(home, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  if (!existsSync(script)) {
    say(`peers: installing ${PORTKEY} from npm into ${home}`);
    mkdirSync(home, { recursive: true });
    const result = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', home, PORTKEY],
      {
        cwd: home,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    if (result.status !== 0 || !existsSync(script)) throw new Error(`could not install ${PORTKEY}`);
  }
  return script;
};

/**
 * Starts Portkey on `port` and waits until it answers.
 * @param {string} results
 * @param {number} port
 * @param {string} logFile
 * @param {(message: string) => void} say
 */
export const startPortkey = async (results, port, logFile, say) => {
  const script = installPortkey(results, say);
  const child = startNode('portkey', [script, `--port=${port}`, '--headless'], {
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], NODE_ENV: 'production' },
    logFile,
    relay: true,
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      await response.arrayBuffer();
      return child;
    } catch {
      if (Date.now() > deadline) throw new Error(`Portkey did not answer on port ${port} within 30 s`);
      await sleep(200);
    }
  }
};

/**
 * Portkey as a target: OpenAI's provider, the double as its custom host.
 * @param {number} port
 * @param {number} pid
 * @param {string} doubleOrigin
 * @returns {import('./measure.mjs').Target}
 */
export const portkeyTarget = (port, pid, doubleOrigin) => ({
  name: 'portkey',
  url: `http://127.0.0.1:${port}/v1/chat/completions`,
  pid,
  headers: {
    'content-type': 'application/json',
    authorization: 'Bearer sk-bench-upstream',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `${doubleOrigin}/v1`,
  },
});

const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Hello! Please greet me back in one short sentence.' },
];

/**
 * @param {import('./measure.mjs').Target[]} targets  direct, bare, Sluice, Portkey
 * @param {{ key: string, quick: boolean, connections: number, loadSeconds: number, warmupSeconds: number }} settings
 * @param {(message: string) => void} say
 */
export const measurePeers = async (targets, settings, say) => {
  const plain = JSON.stringify({ model: BENCH_MODEL, messages: MESSAGES, max_tokens: 64 });
  /** @type {Record<string, import('./measure.mjs').LoadResult>} */
  const load = {};
  for (const target of targets.filter((candidate) => candidate.name !== 'direct')) {
    say(`peers: load on ${target.name}, ${settings.connections} connections`);
    load[target.name] = await measureLoad(target, {
      key: settings.key,
      body: plain,
      connections: settings.connections,
      seconds: settings.loadSeconds,
      warmupSeconds: settings.warmupSeconds,
    });
  }
  const count = settings.quick ? 300 : 1000;
  say(`peers: ${count} sequential requests per target, non-stream, interleaved`);
  const options = { keys: () => settings.key, count, warmup: Math.round(count / 5) };
  const sequential = await measureSequential(targets, { ...options, body: plain, stream: false });
  return { load, sequential };
};

/**
 * @param {Awaited<ReturnType<typeof measurePeers>>} result
 * @returns {string}
 */
export const peersTable = (result) => {
  const direct = result.sequential['direct'];
  const bare = result.load['bare']?.cpuMicrosPerRequest ?? NaN;
  return table(
    ['target', 'req/s (load)', 'CPU µs/req (÷ bare)', 'added p50 / p99 ms'],
    Object.keys(result.load).map((name) => {
      const load = result.load[name];
      const sequential = result.sequential[name];
      const cpu = load?.cpuMicrosPerRequest ?? NaN;
      return [
        name,
        (load?.requestsPerSecond ?? NaN).toFixed(0),
        `${cpu.toFixed(0)} (${(cpu / bare).toFixed(2)})`,
        `${((sequential?.totalMs.p50 ?? NaN) - (direct?.totalMs.p50 ?? NaN)).toFixed(3)} / ${((sequential?.totalMs.p99 ?? NaN) - (direct?.totalMs.p99 ?? NaN)).toFixed(3)}`,
      ];
    }),
  );
};
