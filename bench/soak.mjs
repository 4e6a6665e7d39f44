/**
 * The long-stream soak (BENCH_PARTS=soak, BENCH_SOAK_MINUTES, 10 by default): 16 connections send
 * streamed chat requests with a 50k-token prompt, each answered by a long stream (the double's
 * `…-long` model: 400 events), for the whole time; Sluice's resident memory is sampled every 10 s.
 * The field's most reported gateway failure is memory that grows on long streams: the target is RSS
 * at the end within 10 % of its value after the first minute, and at most 200 MiB.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { memoryBytes } from './proc-stats.mjs';
import { promptOf } from './prompt-sweep.mjs';
import { table } from './report.mjs';
import { BENCH_MODEL } from './sluice-process.mjs';

export const LONG_MODEL = `${BENCH_MODEL}-long`;
const MIB = 1024 * 1024;
const SAMPLE_MS = 10_000;
const WARM_UP_MS = 60_000;

/**
 * @param {import('./measure.mjs').Target} sluice
 * @param {{ key: string, minutes: number }} settings
 * @param {(message: string) => void} say
 */
export const measureSoak = async (sluice, settings, say) => {
  const body = JSON.stringify({
    model: LONG_MODEL,
    stream: true,
    max_tokens: 2048,
    messages: [{ role: 'user', content: promptOf(50_000) }],
  });
  const durationMs = settings.minutes * 60_000;
  say(`soak: ${settings.minutes} min of long streams with 50k-token prompts, 16 connections`);
  const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000 });
  const started = Date.now();
  let streams = 0;
  let failures = 0;
  const loop = async () => {
    while (Date.now() - started < durationMs) {
      try {
        const response = await request(sluice.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${settings.key}` },
          body,
          dispatcher: agent,
        });
        for await (const _chunk of response.body);
        if (response.statusCode === 200) streams += 1;
        else failures += 1;
      } catch {
        failures += 1;
      }
    }
  };
  /** @type {{ seconds: number, rssMiB: number }[]} */
  const samples = [];
  const sampler = (async () => {
    while (Date.now() - started < durationMs) {
      await sleep(SAMPLE_MS);
      samples.push({
        seconds: Math.round((Date.now() - started) / 1000),
        rssMiB: memoryBytes(sluice.pid, 'VmRSS') / MIB,
      });
    }
  })();
  await Promise.all([...Array.from({ length: 16 }, loop), sampler]);
  await agent.close();
  const warm = samples.find((sample) => sample.seconds * 1000 >= WARM_UP_MS) ?? samples[0];
  const last = samples.at(-1);
  return {
    minutes: settings.minutes,
    streams,
    failures,
    samples,
    warmRssMiB: warm?.rssMiB ?? NaN,
    finalRssMiB: last?.rssMiB ?? NaN,
    peakRssMiB: memoryBytes(sluice.pid, 'VmHWM') / MIB,
  };
};

/**
 * @param {Awaited<ReturnType<typeof measureSoak>>} result
 * @returns {string}
 */
export const soakTable = (result) => {
  const growth = result.finalRssMiB / result.warmRssMiB;
  const met = growth <= 1.1 && result.finalRssMiB <= 200;
  const perMinute = result.samples.filter((sample) => sample.seconds % 60 < SAMPLE_MS / 1000);
  return [
    table(
      ['', 'value', 'target', 'verdict'],
      [
        ['streams answered / failed', `${result.streams} / ${result.failures}`, '', ''],
        ['RSS after the first minute (MiB)', result.warmRssMiB.toFixed(1), '', ''],
        [
          `RSS after ${result.minutes} min (MiB), ÷ after the first`,
          `${result.finalRssMiB.toFixed(1)} (${growth.toFixed(3)})`,
          '≤ 1.1 × and ≤ 200',
          met ? 'ok' : 'MISS',
        ],
        ['peak RSS (MiB)', result.peakRssMiB.toFixed(1), '', ''],
      ],
    ),
    `RSS each minute (MiB): ${perMinute.map((sample) => sample.rssMiB.toFixed(0)).join(' ')}`,
  ].join('\n');
};
