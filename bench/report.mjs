/**
 * The text tables printed at the end of a run, from the figures and verdicts derive.mjs works out.
 */

import { median } from './measure.mjs';
import { MIB, TARGETS, fixed, pick } from './derive.mjs';

/** @typedef {import('./derive.mjs').PhaseResult} PhaseResult */
/** @typedef {import('./derive.mjs').Derived} Derived */
/** @typedef {import('./derive.mjs').Verdict} Verdict */

/**
 * A plain text table, first column left-aligned, the others right-aligned.
 * @param {string[]} header
 * @param {string[][]} rows
 * @returns {string}
 */
export const table = (header, rows) => {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (/** @type {string[]} */ cells) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
};

/** The columns of a phase's table: the direct call, the bare relay, then each Sluice measured. */
const namesOf = (/** @type {PhaseResult} */ phase) => Object.keys(phase.load);

/**
 * The ratio of two targets' CPU per request round by round (measure.mjs `measureLoadRounds`): its
 * median, lowest and highest; undefined with fewer than two rounds.
 * @param {PhaseResult} phase
 * @param {string} numerator
 * @param {string} denominator
 * @returns {{ median: number, min: number, max: number, rounds: number } | undefined}
 */
export const roundRatios = (phase, numerator, denominator) => {
  const top = phase.load[numerator]?.roundCpuMicros ?? [];
  const bottom = phase.load[denominator]?.roundCpuMicros ?? [];
  const ratios = top
    .map((value, round) => value / (bottom[round] ?? Number.NaN))
    .filter((ratio) => Number.isFinite(ratio));
  if (ratios.length < 2) return undefined;
  return {
    median: median(ratios),
    min: Math.min(...ratios),
    max: Math.max(...ratios),
    rounds: ratios.length,
  };
};

/**
 * A round ratio as `1.23× (1.10–1.31)`, or '—'.
 * @param {ReturnType<typeof roundRatios>} spread
 * @returns {string}
 */
const spreadText = (spread) =>
  spread ? `${fixed(spread.median, 3)}× (${fixed(spread.min, 2)}–${fixed(spread.max, 2)})` : '—';
const TITLES = /** @type {Record<string, string>} */ ({
  direct: 'direct (double)',
  bare: 'bare relay',
  sluice: 'Sluice',
  'sluice-b': 'Sluice B',
});

/**
 * The side-by-side table of one phase.
 * @param {PhaseResult} phase
 * @param {{ connections: number }} settings
 * @returns {string}
 */
export const phaseTable = (phase, settings) => {
  const names = namesOf(phase);
  /** @type {(cell: (name: string) => string) => string[]} */
  const each = (cell) => names.map(cell);
  const load = (/** @type {string} */ name) => pick(phase.load, name);
  const sequential = (/** @type {string} */ name) => pick(phase.sequential, name);
  const stream = (/** @type {string} */ name) => pick(phase.stream, name);
  const added = (/** @type {number} */ value, /** @type {number} */ direct) =>
    value === direct ? '—' : fixed(value - direct, 3);
  /** @type {string[][]} */
  const rows = [
    [
      `load, ${settings.connections} conns: requests/s`,
      ...each((name) => fixed(load(name).requestsPerSecond, 0)),
    ],
    ['load: latency p50 / p99 (ms)', ...each((name) => `${load(name).p50Ms} / ${load(name).p99Ms}`)],
    ['load: CPU µs per request (own process)', ...each((name) => fixed(load(name).cpuMicrosPerRequest, 1))],
    [
      'load: CPU ÷ bare relay by round, median (min–max)',
      ...each((name) =>
        name === 'direct' || name === 'bare' ? '—' : spreadText(roundRatios(phase, name, 'bare')),
      ),
    ],
    ['load: failed requests', ...each((name) => String(load(name).failures))],
    [
      'sequential: latency p50 / mean (ms)',
      ...each(
        (name) => `${fixed(sequential(name).totalMs.p50, 3)} / ${fixed(sequential(name).totalMs.mean, 3)}`,
      ),
    ],
    [
      'sequential: added p50 / mean vs direct (ms)',
      ...each((name) =>
        name === 'direct'
          ? '—'
          : `${added(sequential(name).totalMs.p50, sequential('direct').totalMs.p50)} / ${added(sequential(name).totalMs.mean, sequential('direct').totalMs.mean)}`,
      ),
    ],
    [
      'stream: first byte p50 / mean (ms)',
      ...each(
        (name) => `${fixed(stream(name).firstByteMs.p50, 3)} / ${fixed(stream(name).firstByteMs.mean, 3)}`,
      ),
    ],
    [
      'stream: added first byte p50 / mean (ms)',
      ...each((name) =>
        name === 'direct'
          ? '—'
          : `${added(stream(name).firstByteMs.p50, stream('direct').firstByteMs.p50)} / ${added(stream(name).firstByteMs.mean, stream('direct').firstByteMs.mean)}`,
      ),
    ],
    ['stream: whole answer p50 (ms)', ...each((name) => fixed(stream(name).totalMs.p50, 3))],
    [
      'sequential: CPU µs per request, non-stream / stream',
      ...each((name) =>
        name === 'direct'
          ? '(shared)'
          : `${fixed(sequential(name).cpuMicrosPerRequest, 0)} / ${fixed(stream(name).cpuMicrosPerRequest, 0)}`,
      ),
    ],
    [
      'peak RSS (MiB)',
      ...each((name) =>
        fixed(
          (name === 'direct'
            ? phase.memory.doublePeakRssBytes
            : name === 'bare'
              ? phase.memory.barePeakRssBytes
              : (phase.memory.peakRssBytesOf?.[name] ?? phase.memory.sluicePeakRssBytes)) / MIB,
          1,
        ),
      ),
    ],
  ];
  const cold = phase.coldKeys;
  if (cold)
    rows.push([
      'cold keys (1 request per new key): p50 (ms)',
      ...each((name) => {
        const own = cold[name];
        if (!own) return '';
        const direct = pick(cold, 'direct').totalMs.p50;
        return name === 'direct'
          ? fixed(direct, 3)
          : `${fixed(own.totalMs.p50, 3)} (+${fixed(own.totalMs.p50 - direct, 3)})`;
      }),
    ]);
  return table(['', ...names.map((name) => TITLES[name] ?? name)], rows);
};

/**
 * @param {Verdict[]} list
 * @returns {string}
 */
export const verdictTable = (list) =>
  table(
    ['target', 'limit', 'base db', 'populated', 'met', 'bare relay, same run'],
    list.map((verdict) => [
      verdict.name,
      verdict.limit,
      fixed(verdict.base, 3),
      fixed(verdict.populated, 3),
      verdict.met ? 'yes' : 'NO',
      verdict.bare,
    ]),
  );

/**
 * A warning when the bare relay itself added more latency than the target allows in this run: the
 * machine was slow (see the README), and the latency verdicts then say little about Sluice.
 * @param {{ base: Derived, populated: Derived }} derived
 * @returns {string}  '' when the bare relay stayed within the limit
 */
export const slowMachineNote = (derived) => {
  const worst = Math.max(
    derived.base.bareAddedP50Ms,
    derived.base.bareAddedFirstByteP50Ms,
    derived.populated.bareAddedP50Ms,
    derived.populated.bareAddedFirstByteP50Ms,
  );
  return worst > TARGETS.addedP50Ms
    ? `note: the bare relay itself added up to ${fixed(worst, 3)} ms in this run, more than the ${TARGETS.addedP50Ms} ms ` +
        'the latency targets allow Sluice: the machine was slow; compare Sluice with the bare relay, or run again.'
    : '';
};

/**
 * Sluice B against Sluice A, phase by phase: their figures from the same run (the sequential ones
 * from interleaved requests), and B − A (B ÷ A for CPU).
 * @param {PhaseResult} base
 * @param {PhaseResult} populated
 * @returns {string}
 */
export const pairedTable = (base, populated) => {
  /** @type {string[][]} */
  const rows = [];
  for (const [label, phase] of /** @type {[string, PhaseResult][]} */ ([
    ['fresh', base],
    ['populated', populated],
  ])) {
    const cpu = (/** @type {string} */ name) => pick(phase.load, name).cpuMicrosPerRequest;
    const added = (/** @type {string} */ name) =>
      pick(phase.sequential, name).totalMs.p50 - pick(phase.sequential, 'direct').totalMs.p50;
    const firstByte = (/** @type {string} */ name) =>
      pick(phase.stream, name).firstByteMs.p50 - pick(phase.stream, 'direct').firstByteMs.p50;
    const addedP99 = (/** @type {string} */ name) =>
      pick(phase.sequential, name).totalMs.p99 - pick(phase.sequential, 'direct').totalMs.p99;
    const firstByteP99 = (/** @type {string} */ name) =>
      pick(phase.stream, name).firstByteMs.p99 - pick(phase.stream, 'direct').firstByteMs.p99;
    const sequentialCpu = (/** @type {string} */ name) =>
      (pick(phase.sequential, name).cpuMicrosPerRequest + pick(phase.stream, name).cpuMicrosPerRequest) / 2;
    /** @type {[string, (name: string) => number, 'ratio' | 'difference', number][]} */
    const figures = [
      ['load: CPU µs per request', cpu, 'ratio', 1],
      ['sequential: CPU µs per request (mean of both)', sequentialCpu, 'ratio', 0],
      ['added p50, non-stream (ms)', added, 'difference', 3],
      ['added first byte p50, stream (ms)', firstByte, 'difference', 3],
      ['added p99, non-stream (ms)', addedP99, 'difference', 3],
      ['added first byte p99, stream (ms)', firstByteP99, 'difference', 3],
    ];
    for (const [name, read, compare, digits] of figures) {
      const a = read('sluice');
      const b = read('sluice-b');
      rows.push([
        `${label}: ${name}`,
        fixed(a, digits),
        fixed(b, digits),
        compare === 'ratio' ? `${fixed(b / a, 3)}×` : `${b - a >= 0 ? '+' : ''}${fixed(b - a, 3)}`,
      ]);
    }
    const spread = roundRatios(phase, 'sluice-b', 'sluice');
    if (spread)
      rows.push([
        `${label}: load: CPU B ÷ Sluice by round, median (min–max of ${spread.rounds})`,
        '',
        '',
        spreadText(spread),
      ]);
  }
  return table(['', 'Sluice', 'Sluice B', 'B against Sluice'], rows);
};
