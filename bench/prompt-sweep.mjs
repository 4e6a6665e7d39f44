/**
 * The prompt sweep: non-stream chat requests whose prompt is about 1k, 10k and 100k tokens (a
 * coding agent sends 50k–150k on every turn), through the direct call, the bare relay and Sluice in
 * the same run. Per size: the added p50 latency of sequential interleaved requests, and the CPU per
 * request under a light load (8 connections) against the bare relay's.
 */
import { Buffer } from 'node:buffer';
import { measureLoad, measureSequential } from './measure.mjs';
import { table } from './report.mjs';
import { BENCH_MODEL } from './sluice-process.mjs';

/** About four characters a token (English text, OpenAI's tokenizers). */
const CHARS_PER_TOKEN = 4;
const WORDS = (
  'the gateway relays each request to a channel and bills its tokens against the quota of the key ' +
  'function return const import export interface async await string number boolean undefined ' +
  'stream chunk usage prompt completion model ratio group channel priority weight retry'
).split(' ');

/**
 * A prompt of about `tokens` tokens: words in a fixed pseudo-random order (the same every run).
 * @param {number} tokens
 * @returns {string}
 */
export const promptOf = (tokens) => {
  const parts = [];
  let length = 0;
  let seed = 12345;
  while (length < tokens * CHARS_PER_TOKEN) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const word = WORDS[seed % WORDS.length] ?? 'word';
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ');
};

/**
 * @param {number} tokens
 * @returns {string}
 */
const bodyOf = (tokens) =>
  JSON.stringify({
    model: BENCH_MODEL,
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: promptOf(tokens) },
    ],
    max_tokens: 64,
  });

/**
 * @typedef {object} SweepPoint
 * @property {number} tokens
 * @property {number} bodyBytes
 * @property {Record<string, import('./measure.mjs').SequentialResult>} sequential
 * @property {Record<string, import('./measure.mjs').LoadResult>} load
 */

/**
 * @param {import('./measure.mjs').Target[]} targets  direct, bare, then each Sluice
 * @param {{ key: string, quick: boolean }} settings
 * @param {(message: string) => void} say
 * @returns {Promise<SweepPoint[]>}
 */
export const measurePromptSweep = async (targets, settings, say) => {
  /** @type {SweepPoint[]} */
  const points = [];
  for (const tokens of [1_000, 10_000, 100_000]) {
    const body = bodyOf(tokens);
    const count = Math.round((settings.quick ? 60 : 200) * (tokens >= 100_000 ? 0.5 : 1));
    say(`prompt sweep: ${tokens} tokens (${body.length} bytes), ${count} sequential requests per target`);
    const sequential = await measureSequential(targets, {
      keys: () => settings.key,
      body,
      stream: false,
      count,
      warmup: Math.round(count / 5),
    });
    /** @type {Record<string, import('./measure.mjs').LoadResult>} */
    const load = {};
    for (const target of targets.filter((candidate) => candidate.name !== 'direct')) {
      say(`prompt sweep: ${tokens} tokens, load on ${target.name}, 8 connections`);
      load[target.name] = await measureLoad(target, {
        key: settings.key,
        body,
        connections: 8,
        seconds: settings.quick ? 2 : 5,
        warmupSeconds: 1,
      });
    }
    points.push({ tokens, bodyBytes: Buffer.byteLength(body), sequential, load });
  }
  return points;
};

/**
 * @param {SweepPoint} point
 * @param {string} name
 */
export const derivePoint = (point, name) => {
  const direct = point.sequential['direct']?.totalMs.p50 ?? Number.NaN;
  const own = point.sequential[name];
  const cpu = point.load[name]?.cpuMicrosPerRequest ?? Number.NaN;
  const bareCpu = point.load['bare']?.cpuMicrosPerRequest ?? Number.NaN;
  return {
    addedP50Ms: (own?.totalMs.p50 ?? Number.NaN) - direct,
    addedP99Ms: (own?.totalMs.p99 ?? Number.NaN) - (point.sequential['direct']?.totalMs.p99 ?? Number.NaN),
    cpuMicrosPerRequest: cpu,
    cpuRatio: cpu / bareCpu,
  };
};

/** The targets at 100k tokens. */
export const PROMPT_LIMITS = { addedP50Ms: 2, cpuRatio: 1.5 };

/**
 * @param {SweepPoint[]} points
 * @returns {string}
 */
export const promptSweepTable = (points) => {
  const names = Object.keys(points[0]?.load ?? {});
  /** @type {string[][]} */
  const rows = [];
  for (const point of points)
    for (const name of names) {
      const figures = derivePoint(point, name);
      const judged = point.tokens === 100_000 && name.startsWith('sluice');
      rows.push([
        `${point.tokens / 1000}k tokens (${Math.round(point.bodyBytes / 1024)} KiB)`,
        name,
        figures.addedP50Ms.toFixed(3),
        figures.addedP99Ms.toFixed(3),
        figures.cpuMicrosPerRequest.toFixed(0),
        name === 'bare' ? '1.00' : figures.cpuRatio.toFixed(2),
        judged
          ? figures.addedP50Ms <= PROMPT_LIMITS.addedP50Ms && figures.cpuRatio <= PROMPT_LIMITS.cpuRatio
            ? 'ok'
            : 'MISS'
          : '',
      ]);
    }
  return table(
    ['prompt', 'target', 'added p50 ms', 'added p99 ms', 'CPU µs/req (8 conns)', '× bare', 'verdict'],
    rows,
  );
};
