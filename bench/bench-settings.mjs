/**
 * The bench's settings, read once from the environment (BENCH_*; bench/README.md, "Running"), and
 * the requests it sends.
 */
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';
import { limitSwitches } from './limits.mjs';
import { BENCH_MODEL, parseSluiceEnv } from './sluice-process.mjs';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const RESULTS = fileURLToPath(new URL('results', import.meta.url));
export const quick = process.env['BENCH_QUICK'] === '1';
export const profile = process.env['BENCH_CPU_PROF'] === '1';
export const sluiceMain = process.env['BENCH_SLUICE_MAIN'] || undefined;
export const sluiceEnv = parseSluiceEnv(process.env['BENCH_SLUICE_ENV']);
// A second Sluice measured beside the first in the same run (its requests interleaved with the
// first's): BENCH_B_MAIN another build, BENCH_B_ENV other settings, or both.
export const pairMain = process.env['BENCH_B_MAIN'] || undefined;
export const pairEnv = parseSluiceEnv(process.env['BENCH_B_ENV']);
/** BENCH_B_NODE_FLAGS: node flags for Sluice B after the `serve` script's (a later flag wins). */
export const pairFlags = (process.env['BENCH_B_NODE_FLAGS'] ?? '').split(' ').filter((flag) => flag !== '');
// BENCH_NODE24=1: Sluice B is this build on Node 24 (node24.mjs prepares it).
export const node24 = process.env['BENCH_NODE24'] === '1';
/**
 * BENCH_CHANNELS=4: the bench model served by 4 channels of one priority (the double behind each);
 * BENCH_AFFINITY=1: conversation affinity on (ConversationAffinityEnabled). BENCH_B_CHANNELS and
 * BENCH_B_AFFINITY set them for Sluice B alone (a paired run against the single channel).
 * @param {string | undefined} channels
 * @param {string | undefined} affinity
 * @returns {import('./sluice-process.mjs').Routing}
 */
export const routingOf = (channels, affinity) => {
  const count = Number(channels ?? '1');
  if (!Number.isInteger(count) || count < 1 || count > 64) throw new Error('BENCH_CHANNELS: 1 to 64');
  return { channels: count, affinity: affinity === '1' };
};
export const routing = routingOf(process.env['BENCH_CHANNELS'], process.env['BENCH_AFFINITY']);
export const pairRouting = routingOf(
  process.env['BENCH_B_CHANNELS'] ?? process.env['BENCH_CHANNELS'],
  process.env['BENCH_B_AFFINITY'] ?? process.env['BENCH_AFFINITY'],
);
// BENCH_LIMITS / BENCH_B_LIMITS: limits and budgets on the bench's key and user, Redis on (limits.mjs).
export const limitRun = limitSwitches();
export const paired =
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
export const PARTS = new Set(
  (process.env['BENCH_PARTS'] ?? 'core,formats,prompts,concurrency,jitter,flood,peers')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !(part === 'formats' && process.env['BENCH_FORMATS'] === '0')),
);
for (const part of PARTS)
  if (!['core', 'formats', 'prompts', 'concurrency', 'jitter', 'flood', 'peers', 'soak'].includes(part))
    throw new Error(`BENCH_PARTS: unknown part ${part}`);

export const SETTINGS = {
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

export const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Hello! Please greet me back in one short sentence.' },
];
export const CHAT_BODY = JSON.stringify({ model: BENCH_MODEL, messages: MESSAGES, max_tokens: 64 });
export const STREAM_BODY = JSON.stringify({
  model: BENCH_MODEL,
  messages: MESSAGES,
  max_tokens: 64,
  stream: true,
});

export const started = Date.now();
/** @param {string} message */
export const say = (message) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);
