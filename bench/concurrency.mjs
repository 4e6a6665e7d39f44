/**
 * The concurrency sweep (issue "Fast at every size"): 1, 4, 16 and 64 connections, each a closed
 * loop that sends to every target in turn (so that all targets see the same machine), p50 and p99 of
 * the added latency, non-stream and stream first byte; and each Sluice's own time over the same
 * requests, from its /metrics (overhead.mjs).
 */
import { URL } from 'node:url';
import { Agent } from 'undici';
import { chat, timed } from './bench-requests.mjs';
import { statsOf } from './measure.mjs';
import { overheadBetween, readOverhead } from './overhead.mjs';
import { table } from './report.mjs';
import { BENCH_MODEL } from './sluice-process.mjs';

/** @typedef {import('./overhead.mjs').OwnTime} OwnTime */

/** @type {Map<number, number>} */
const NONE = new Map();

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
