import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { setTimeout } from 'node:timers';
import { Agent, request } from 'undici';
import { cpuSeconds } from './proc-stats.mjs';

/**
 * @typedef {object} Target
 * @property {string} name  direct | bare | sluice
 * @property {string} url  the chat completions URL
 * @property {number} pid  the process whose CPU time is the target's cost (the double for direct)
 * @property {string} [body]  the request body, when it is not the measurement's own
 * @property {string} [streamEnd]  what a whole stream of this target contains (default `data: [DONE]`)
 * @property {Record<string, string>} [headers]  the request headers, when not a Sluice key's
 */

/**
 * The part of autocannon's result the bench reads (autocannon ships no types).
 * @typedef {object} AutocannonResult
 * @property {number} duration  seconds
 * @property {number} errors
 * @property {number} timeouts
 * @property {number} non2xx
 * @property {{ p50: number, p99: number, mean: number }} latency  milliseconds
 * @property {{ total: number, average: number }} requests
 */

/**
 * @typedef {object} AutocannonOptions
 * @property {string} url
 * @property {string} method
 * @property {Record<string, string>} headers
 * @property {string} body
 * @property {number} connections
 * @property {number} duration
 */

/**
 * @param {unknown} value
 * @returns {value is (options: AutocannonOptions) => Promise<AutocannonResult>}
 */
const isAutocannon = (value) => typeof value === 'function';

/** @type {unknown} */
const loaded = createRequire(import.meta.url)('autocannon');
if (!isAutocannon(loaded)) throw new Error('autocannon is not installed');
const runAutocannon = loaded;

/**
 * @param {string} key
 * @returns {Record<string, string>}
 */
const headersFor = (key) => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });

/**
 * @typedef {object} LoadResult
 * @property {number} requests  completed requests
 * @property {number} requestsPerSecond
 * @property {number} p50Ms
 * @property {number} p99Ms
 * @property {number} failures  errors + timeouts + non-2xx answers
 * @property {number} cpuMicrosPerRequest  CPU time of the target's process per completed request
 */

/**
 * `connections` concurrent keep-alive clients for `seconds`, after a warm-up of `warmupSeconds`;
 * the target's CPU time (/proc/<pid>/stat) is read around the measured part.
 * @param {Target} target
 * @param {{ key: string, body: string, connections: number, seconds: number, warmupSeconds: number }} options
 * @returns {Promise<LoadResult>}
 */
export const measureLoad = async (target, options) => {
  const common = {
    url: target.url,
    method: 'POST',
    headers: target.headers ?? headersFor(options.key),
    body: options.body,
    connections: options.connections,
  };
  await runAutocannon({ ...common, duration: options.warmupSeconds });
  await settleDown();
  const cpuBefore = cpuSeconds(target.pid);
  const result = await runAutocannon({ ...common, duration: options.seconds });
  await settleDown();
  const cpu = cpuSeconds(target.pid) - cpuBefore;
  const requests = result.requests.total;
  return {
    requests,
    requestsPerSecond: requests / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failures: result.errors + result.timeouts + result.non2xx,
    cpuMicrosPerRequest: requests > 0 ? (cpu * 1e6) / requests : Number.NaN,
  };
};

/**
 * @typedef {LoadResult & { roundCpuMicros: number[] }} RoundsResult
 * `roundCpuMicros`: the CPU per request of each round's slice, in round order.
 */

/**
 * The load of several targets in rounds: each target warmed up once, then `rounds` slices of
 * `seconds / rounds` each, the targets taking turns within a round (the first of a round moves on by
 * one each round, so that no target is always measured first). A slow stretch of the machine then
 * falls on every target alike, and the rounds' spread of a ratio is the run's own noise.
 * @param {Target[]} targets
 * @param {{ key: string, body: string, connections: number, seconds: number, warmupSeconds: number, rounds: number }} options
 * @param {(message: string) => void} [say]
 * @returns {Promise<Record<string, RoundsResult>>}
 */
export const measureLoadRounds = async (targets, options, say = () => undefined) => {
  const rounds = Math.max(1, Math.round(options.rounds));
  const slice = options.seconds / rounds;
  /** @type {Map<string, { requests: number, cpu: number, duration: number, p50: number[], p99: number[], failures: number, perRound: number[] }>} */
  const sums = new Map();
  const commonOf = (/** @type {Target} */ target) => ({
    url: target.url,
    method: 'POST',
    headers: target.headers ?? headersFor(options.key),
    body: options.body,
    connections: options.connections,
  });
  for (const target of targets) {
    say(`load: ${target.name} warm-up, ${options.connections} connections, ${options.warmupSeconds} s`);
    await runAutocannon({ ...commonOf(target), duration: options.warmupSeconds });
    sums.set(target.name, { requests: 0, cpu: 0, duration: 0, p50: [], p99: [], failures: 0, perRound: [] });
  }
  await settleDown();
  for (let round = 0; round < rounds; round += 1) {
    say(`load: round ${round + 1} of ${rounds}, ${slice} s per target`);
    for (let turn = 0; turn < targets.length; turn += 1) {
      const target = /** @type {Target} */ (targets[(round + turn) % targets.length]);
      const sum = /** @type {NonNullable<ReturnType<typeof sums.get>>} */ (sums.get(target.name));
      const cpuBefore = cpuSeconds(target.pid);
      const result = await runAutocannon({ ...commonOf(target), duration: slice });
      await settleDown();
      const cpu = cpuSeconds(target.pid) - cpuBefore;
      const requests = result.requests.total;
      sum.requests += requests;
      sum.cpu += cpu;
      sum.duration += result.duration;
      sum.p50.push(result.latency.p50);
      sum.p99.push(result.latency.p99);
      sum.failures += result.errors + result.timeouts + result.non2xx;
      sum.perRound[round] = requests > 0 ? (cpu * 1e6) / requests : Number.NaN;
    }
  }
  return Object.fromEntries(
    [...sums].map(([name, sum]) => [
      name,
      {
        requests: sum.requests,
        requestsPerSecond: sum.requests / sum.duration,
        p50Ms: median(sum.p50),
        p99Ms: median(sum.p99),
        failures: sum.failures,
        cpuMicrosPerRequest: sum.requests > 0 ? (sum.cpu * 1e6) / sum.requests : Number.NaN,
        roundCpuMicros: sum.perRound,
      },
    ]),
  );
};

/**
 * The median of some numbers (NaN for none).
 * @param {number[]} values
 * @returns {number}
 */
export const median = (values) => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  const lower = sorted[middle - 1] ?? upper;
  return sorted.length % 2 === 1 ? upper : (lower + upper) / 2;
};

/** Lets background work (settlements, logs) finish before CPU time is read. */
const settleDown = () => new Promise((resolve) => setTimeout(resolve, 300));

/**
 * @typedef {object} Timing
 * @property {number} totalMs  request sent → last body byte
 * @property {number} firstByteMs  request sent → first body byte
 */

/**
 * One request on a keep-alive connection; checks the status and, for streams, the final [DONE].
 * @param {Target} target
 * @param {string} key
 * @param {string} body
 * @param {boolean} stream
 * @param {Agent} agent
 * @returns {Promise<Timing>}
 */
const timedRequest = async (target, key, body, stream, agent) => {
  const { url, streamEnd = 'data: [DONE]' } = target;
  const started = performance.now();
  const headers = target.headers ?? headersFor(key);
  const response = await request(url, { method: 'POST', headers, body, dispatcher: agent });
  let firstByte = 0;
  let text = '';
  for await (const chunk of response.body) {
    if (firstByte === 0) firstByte = performance.now();
    if (Buffer.isBuffer(chunk)) text += chunk.toString('utf8');
  }
  const ended = performance.now();
  if (response.statusCode !== 200 || (stream && !text.includes(streamEnd)))
    throw new Error(`${url} answered ${response.statusCode}: ${text.slice(0, 300)}`);
  return { totalMs: ended - started, firstByteMs: firstByte - started };
};

/**
 * @typedef {object} Stats
 * @property {number} p50
 * @property {number} p99
 * @property {number} mean
 */

/**
 * @param {number[]} values
 * @returns {Stats}
 */
export const statsOf = (values) => {
  const sorted = [...values].sort((left, right) => left - right);
  const at = (/** @type {number} */ quantile) =>
    sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? Number.NaN;
  const mean = sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length);
  return { p50: at(0.5), p99: at(0.99), mean };
};

/**
 * @typedef {object} SequentialResult
 * @property {Stats} totalMs
 * @property {Stats} firstByteMs
 * @property {number} cpuMicrosPerRequest
 */

/**
 * `count` requests one after the other to each target, interleaved (target 1, 2, 3, 1, 2, 3, …) so
 * every target sees the same machine conditions; one keep-alive connection per target. `warmup`
 * rounds first, not counted. The CPU time of each target's process is read around the counted part
 * (the double's is shared by all targets, so only relays' figures mean something here).
 * @param {Target[]} targets
 * @param {{ keys: (round: number) => string, body: string, stream: boolean, count: number, warmup: number }} options
 * @returns {Promise<Record<string, SequentialResult>>}
 */
export const measureSequential = async (targets, options) => {
  const agents = targets.map(() => new Agent({ connections: 1, keepAliveTimeout: 30_000 }));
  try {
    for (let round = 0; round < options.warmup; round += 1)
      for (const [index, target] of targets.entries())
        await timedRequest(
          target,
          options.keys(-1),
          target.body ?? options.body,
          options.stream,
          agentAt(agents, index),
        );
    const cpuBefore = targets.map((target) => cpuSeconds(target.pid));
    /** @type {Timing[][]} */
    const timings = targets.map(() => []);
    for (let round = 0; round < options.count; round += 1)
      for (const [index, target] of targets.entries())
        timings[index]?.push(
          await timedRequest(
            target,
            options.keys(round),
            target.body ?? options.body,
            options.stream,
            agentAt(agents, index),
          ),
        );
    await settleDown();
    /** @type {Record<string, SequentialResult>} */
    const results = {};
    for (const [index, target] of targets.entries()) {
      const cpu = cpuSeconds(target.pid) - (cpuBefore[index] ?? 0);
      const list = timings[index] ?? [];
      results[target.name] = {
        totalMs: statsOf(list.map((timing) => timing.totalMs)),
        firstByteMs: statsOf(list.map((timing) => timing.firstByteMs)),
        cpuMicrosPerRequest: (cpu * 1e6) / options.count,
      };
    }
    return results;
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
};

/**
 * @param {Agent[]} agents
 * @param {number} index
 * @returns {Agent}
 */
const agentAt = (agents, index) => {
  const agent = agents[index];
  if (!agent) throw new Error(`no agent ${index}`);
  return agent;
};
