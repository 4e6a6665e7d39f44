/**
 * What the field's benchmarks measure beyond one request at a time (issue "Fast at every size"),
 * besides the concurrency sweep (concurrency.mjs):
 * - slow streams: an upstream that spaces its chunks 10 ms apart, the gaps the client sees;
 * - a flood of invalid keys: CPU per rejected request, and a valid client's latency beside it.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { MESSAGES, chat, timed } from './bench-requests.mjs';
import { measureLoad, measureSequential, statsOf } from './measure.mjs';
import { cpuSeconds } from './proc-stats.mjs';
import { table } from './report.mjs';
import { BENCH_MODEL } from './sluice-process.mjs';

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
