/**
 * What the field's benchmarks measure beyond one request at a time (issue "Fast at every size"):
 * - the concurrency sweep: 1, 4, 16 and 64 connections, each a closed loop that sends to every
 *   target in turn (so that all targets see the same machine), p50 and p99 of the added latency,
 *   non-stream and stream first byte;
 * - slow streams: an upstream that spaces its chunks 10 ms apart, the gaps the client sees;
 * - a flood of invalid keys: CPU per rejected request, and a valid client's latency beside it.
 */
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { measureLoad, measureSequential, statsOf } from './measure.mjs';
import { URL } from 'node:url';
import { overheadBetween, readOverhead } from './overhead.mjs';

/** @typedef {import('./overhead.mjs').OwnTime} OwnTime */

/** @type {Map<number, number>} */
const NONE = new Map();
import { cpuSeconds } from './proc-stats.mjs';
import { table } from './report.mjs';
import { BENCH_MODEL } from './sluice-process.mjs';

const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Hello! Please greet me back in one short sentence.' },
];
/** @param {string} model @param {boolean} stream */
const chat = (model, stream) => JSON.stringify({ model, messages: MESSAGES, max_tokens: 64, stream });

/** The model whose stream the double spaces out (`…-slow`: 20 chunks, 10 ms apart). */
export const SLOW_MODEL = `${BENCH_MODEL}-slow`;
export const SLOW_GAP_MS = 10;
/**
 * The slow stream's request asks for the usage chunk: Sluice always asks its upstream for it (to
 * bill) and drops it when the client did not, so without it the upstream sends Sluice one event
 * more than the direct call, and the client would see that event's 10 ms as a 20 ms gap.
 */
const SLOW_BODY = JSON.stringify({
  model: SLOW_MODEL,
  messages: MESSAGES,
  max_tokens: 64,
  stream: true,
  stream_options: { include_usage: true },
});

/**
 * One request; its total time, time to first byte and the arrival times of its chunks.
 * @param {string} url
 * @param {string} key
 * @param {string} body
 * @param {Agent} agent
 */
const timed = async (url, key, body, agent) => {
  const started = performance.now();
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
    dispatcher: agent,
  });
  /** @type {number[]} */
  const arrivals = [];
  let text = '';
  for await (const chunk of response.body) {
    arrivals.push(performance.now());
    if (Buffer.isBuffer(chunk)) text += chunk.toString('utf8');
  }
  if (response.statusCode !== 200)
    throw new Error(`${url} answered ${response.statusCode}: ${text.slice(0, 200)}`);
  return { totalMs: performance.now() - started, firstByteMs: (arrivals[0] ?? started) - started, arrivals };
};

/**
 * `connections` closed loops, each sending `rounds` requests to every target in turn, on its own
 * connection to each; `counted` is awaited between the warm-up and the counted rounds.
 * @param {import('./measure.mjs').Target[]} targets
 * @param {{ key: string, body: string, connections: number, rounds: number }} options
 * @param {() => Promise<void>} [counted]
 */
const closedLoops = async (targets, options, counted = () => Promise.resolve()) => {
  const agents = targets.map(() => new Agent({ connections: options.connections, keepAliveTimeout: 30_000 }));
  /** @type {{ totalMs: number, firstByteMs: number }[][]} */
  const timings = targets.map(() => []);
  try {
    const loop = async (/** @type {boolean} */ counted) => {
      for (let round = 0; round < (counted ? options.rounds : 3); round += 1)
        for (const [index, target] of targets.entries()) {
          const timing = await timed(
            target.url,
            options.key,
            options.body,
            /** @type {Agent} */ (agents[index]),
          );
          if (counted) timings[index]?.push(timing);
        }
    };
    await Promise.all(Array.from({ length: options.connections }, () => loop(false)));
    await counted();
    await Promise.all(Array.from({ length: options.connections }, () => loop(true)));
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
  return Object.fromEntries(
    targets.map((target, index) => {
      const list = timings[index] ?? [];
      return [
        target.name,
        {
          totalMs: statsOf(list.map((t) => t.totalMs)),
          firstByteMs: statsOf(list.map((t) => t.firstByteMs)),
        },
      ];
    }),
  );
};

/**
 * @param {import('./measure.mjs').Target[]} targets  direct, bare, then each Sluice
 * @param {{ key: string, quick: boolean }} settings
 * @param {(message: string) => void} say
 */
export const measureConcurrency = async (targets, settings, say) => {
  /** @typedef {Record<string, { totalMs: import('./measure.mjs').Stats, firstByteMs: import('./measure.mjs').Stats }>} Timings */
  /** @type {{ connections: number, plain: Timings, stream: Timings, own: { plain: Record<string, OwnTime>, stream: Record<string, OwnTime> } }[]} */
  const points = [];
  const sluices = targets.filter((target) => target.name.startsWith('sluice'));
  /**
   * The closed loops, and each Sluice's own time over their counted rounds (its /metrics).
   * @param {string} body
   * @param {number} connections
   * @param {number} rounds
   */
  const measured = async (body, connections, rounds) => {
    /** @type {Map<number, number>[]} */
    let before = [];
    const timings = await closedLoops(targets, { key: settings.key, body, connections, rounds }, async () => {
      before = await Promise.all(sluices.map((target) => readOverhead(new URL(target.url).origin)));
    });
    const after = await Promise.all(sluices.map((target) => readOverhead(new URL(target.url).origin)));
    /** @type {Record<string, OwnTime>} */
    const own = {};
    for (const [index, target] of sluices.entries())
      own[target.name] = overheadBetween(before[index] ?? NONE, after[index] ?? NONE);
    return { timings, own };
  };
  for (const connections of [1, 4, 16, 64]) {
    const rounds = Math.max(10, Math.round((settings.quick ? 300 : 1500) / connections));
    say(`concurrency sweep: ${connections} connections × ${rounds} rounds over every target`);
    const plain = await measured(chat(BENCH_MODEL, false), connections, rounds);
    const stream = await measured(chat(BENCH_MODEL, true), connections, rounds);
    points.push({
      connections,
      plain: plain.timings,
      stream: stream.timings,
      own: { plain: plain.own, stream: stream.own },
    });
  }
  return points;
};

/**
 * @param {Awaited<ReturnType<typeof measureConcurrency>>} points
 * @returns {string}
 */
export const concurrencyTable = (points) => {
  /** @type {string[][]} */
  const rows = [];
  for (const point of points)
    for (const name of Object.keys(point.plain).filter((candidate) => candidate !== 'direct')) {
      const added = (/** @type {'plain' | 'stream'} */ kind, /** @type {'p50' | 'p99'} */ at) => {
        const field = kind === 'plain' ? 'totalMs' : 'firstByteMs';
        return (point[kind][name]?.[field][at] ?? NaN) - (point[kind]['direct']?.[field][at] ?? NaN);
      };
      const directP99 = point.plain['direct']?.totalMs.p99 ?? NaN;
      const ownP99 = point.plain[name]?.totalMs.p99 ?? NaN;
      const judged = name.startsWith('sluice');
      const met =
        point.connections <= 16
          ? added('plain', 'p99') <= 1 && added('stream', 'p99') <= 1
          : ownP99 <= 2 * directP99;
      const own = (/** @type {'plain' | 'stream'} */ kind) => {
        const time = point.own[kind][name];
        return time
          ? `${time.p50Ms.toFixed(3)} / ${time.p99Ms.toFixed(3)} (${(time.within1Ms * 100).toFixed(1)} %)`
          : '—';
      };
      rows.push([
        String(point.connections),
        name,
        `${added('plain', 'p50').toFixed(3)} / ${added('plain', 'p99').toFixed(3)}`,
        `${added('stream', 'p50').toFixed(3)} / ${added('stream', 'p99').toFixed(3)}`,
        `${directP99.toFixed(2)} / ${ownP99.toFixed(2)}`,
        point.connections <= 16 ? 'added p99 ≤ 1 ms' : 'p99 ≤ 2 × direct',
        judged ? (met ? 'ok' : 'MISS') : '',
        own('plain'),
        own('stream'),
      ]);
    }
  return table(
    [
      'conns',
      'target',
      'added p50 / p99 ms',
      'first byte added p50 / p99',
      'p99 direct / own',
      'target',
      'verdict',
      'own p50 / p99 ms (≤ 1 ms)',
      'own to first byte p50 / p99 (≤ 1 ms)',
    ],
    rows,
  );
};

/**
 * Streams whose upstream spaces its chunks 10 ms apart: the gaps between the chunks the client
 * receives, per target (what a relay adds is jitter on top of 10 ms).
 * @param {import('./measure.mjs').Target[]} targets
 * @param {{ key: string, quick: boolean }} settings
 * @param {(message: string) => void} say
 */
export const measureJitter = async (targets, settings, say) => {
  const count = settings.quick ? 15 : 60;
  say(`slow streams: ${count} streams per target, chunks ${SLOW_GAP_MS} ms apart`);
  const agents = targets.map(() => new Agent({ connections: 1, keepAliveTimeout: 30_000 }));
  /** @type {number[][]} */
  const gaps = targets.map(() => []);
  try {
    for (let round = 0; round < count; round += 1)
      for (const [index, target] of targets.entries()) {
        const { arrivals } = await timed(
          target.url,
          settings.key,
          SLOW_BODY,
          /** @type {Agent} */ (agents[index]),
        );
        for (let at = 1; at < arrivals.length; at += 1)
          gaps[index]?.push((arrivals[at] ?? 0) - (arrivals[at - 1] ?? 0));
      }
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
  // Only the gaps that span the upstream's pause (a chunk may arrive in two reads): ≥ half of it.
  return Object.fromEntries(
    targets.map((target, index) => [
      target.name,
      statsOf((gaps[index] ?? []).filter((gap) => gap >= SLOW_GAP_MS / 2)),
    ]),
  );
};

/**
 * @param {Awaited<ReturnType<typeof measureJitter>>} result
 * @returns {string}
 */
export const jitterTable = (result) =>
  table(
    ['target', 'gap p50 ms', 'gap p99 ms', 'added jitter p99 ms (vs direct)'],
    Object.entries(result).map(([name, stats]) => [
      name,
      stats.p50.toFixed(3),
      stats.p99.toFixed(3),
      name === 'direct' ? '—' : (stats.p99 - (result['direct']?.p99 ?? NaN)).toFixed(3),
    ]),
  );

/**
 * A flood of requests with keys that do not exist (50 connections), with a valid client's
 * sequential requests beside it: the CPU Sluice spends per rejected request, and the valid client's
 * latency during the flood against just before it.
 * @param {import('./measure.mjs').Target} direct
 * @param {import('./measure.mjs').Target} sluice
 * @param {{ key: string, quick: boolean, relayedCpuMicros: number | undefined }} settings
 * @param {(message: string) => void} say
 */
export const measureFlood = async (direct, sluice, settings, say) => {
  const seconds = settings.quick ? 3 : 8;
  const count = settings.quick ? 100 : 300;
  const body = chat(BENCH_MODEL, false);
  const valid = () =>
    measureSequential([direct, sluice], { keys: () => settings.key, body, stream: false, count, warmup: 20 });
  say('flood: valid requests before it');
  const calm = await valid();
  say(`flood: invalid keys, 50 connections, ${seconds} s, valid requests beside it`);
  const cpuBefore = cpuSeconds(sluice.pid);
  const floodStarted = performance.now();
  const flood = measureLoad(
    { ...sluice, name: 'flood' },
    {
      key: 'sk-doesNotExist0123456789abcdefghijklmnopqrstuv',
      body,
      connections: 50,
      seconds,
      warmupSeconds: 0,
    },
  );
  await sleep(300);
  const during = await valid();
  const flooded = await flood;
  const floodSeconds = (performance.now() - floodStarted) / 1000;
  const cpu = cpuSeconds(sluice.pid) - cpuBefore;
  // The flood's own requests are the rejected ones (all 401); the valid ones are few beside them.
  const rejected = flooded.requests;
  const cpuPerRejected = (cpu * 1e6) / Math.max(1, rejected + count);
  return {
    rejectedPerSecond: rejected / floodSeconds,
    cpuMicrosPerRejected: cpuPerRejected,
    relayedCpuMicros: settings.relayedCpuMicros,
    calm: calm[sluice.name],
    during: during[sluice.name],
    directCalm: calm[direct.name],
    directDuring: during[direct.name],
  };
};

/**
 * @param {Awaited<ReturnType<typeof measureFlood>>} result
 * @returns {string}
 */
export const floodTable = (result) => {
  const ratio = result.relayedCpuMicros ? result.cpuMicrosPerRejected / result.relayedCpuMicros : NaN;
  return table(
    ['', 'value', 'target', 'verdict'],
    [
      ['rejected requests/s', result.rejectedPerSecond.toFixed(0), '', ''],
      [
        'CPU µs per rejected (÷ relayed request under load)',
        `${result.cpuMicrosPerRejected.toFixed(1)} (${Number.isFinite(ratio) ? ratio.toFixed(2) : 'n/a'})`,
        '≤ 0.5 ×',
        Number.isFinite(ratio) ? (ratio <= 0.5 ? 'ok' : 'MISS') : '',
      ],
      [
        'valid request p50 / p99 before the flood (ms)',
        `${result.calm?.totalMs.p50.toFixed(3)} / ${result.calm?.totalMs.p99.toFixed(3)}`,
        '',
        '',
      ],
      [
        'valid request p50 / p99 during the flood (ms)',
        `${result.during?.totalMs.p50.toFixed(3)} / ${result.during?.totalMs.p99.toFixed(3)}`,
        '',
        '',
      ],
      [
        'direct p50 before / during (ms)',
        `${result.directCalm?.totalMs.p50.toFixed(3)} / ${result.directDuring?.totalMs.p50.toFixed(3)}`,
        '',
        '',
      ],
    ],
  );
};
