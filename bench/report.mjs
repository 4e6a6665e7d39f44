/**
 * Turns the measured figures into the derived ones (ratios, added latency), the verdicts against the
 * targets, and the text tables printed at the end of a run.
 */

import { median } from './measure.mjs';

const MIB = 1024 * 1024;

/** The targets of architecture's hot-path rules, as the bench checks them. */
export const TARGETS = {
  cpuRatio: 2,
  addedP50Ms: 0.5,
  peakRssMiB: 150,
  /** "Flat" after populating: CPU per request no worse than this factor of the figure before… */
  flatFactor: 1.25,
  /** …and added p50 no more than this much above (or 25 % above, whichever is larger): run-to-run noise. */
  flatAddedMs: 0.1,
};

/**
 * @typedef {object} PhaseResult
 * @property {Record<string, import('./measure.mjs').LoadResult & { roundCpuMicros?: number[] }>} load
 * @property {Record<string, import('./measure.mjs').SequentialResult>} sequential
 * @property {Record<string, import('./measure.mjs').SequentialResult>} stream
 * @property {Record<string, import('./measure.mjs').SequentialResult>} [coldKeys]
 * @property {{ sluicePeakRssBytes: number, sluiceRssBytes: number, barePeakRssBytes: number, doublePeakRssBytes: number, peakRssBytesOf?: Record<string, number> }} memory
 */

/**
 * @typedef {object} Derived
 * @property {number} cpuRatio  Sluice CPU per request ÷ bare relay CPU per request, under load
 * @property {number} sequentialCpuRatio  the same in the sequential non-stream run
 * @property {number} sluiceCpuMicros
 * @property {number} bareCpuMicros
 * @property {number} addedP50Ms  Sluice − direct, non-stream, sequential
 * @property {number} addedMeanMs
 * @property {number} addedFirstByteP50Ms  Sluice − direct, stream time to first byte
 * @property {number} addedFirstByteMeanMs
 * @property {number} bareAddedP50Ms
 * @property {number} bareAddedFirstByteP50Ms
 * @property {number} peakRssMiB
 * @property {number} [coldKeyAddedP50Ms]
 */

/**
 * @template T
 * @param {Record<string, T> | undefined} record
 * @param {string} name
 * @returns {T}
 */
const pick = (record, name) => {
  const value = record?.[name];
  if (value === undefined) throw new Error(`no result for ${name}`);
  return value;
};

/**
 * @param {PhaseResult} phase
 * @returns {Derived}
 */
export const derive = (phase) => {
  const sequential = (/** @type {string} */ name) => pick(phase.sequential, name);
  const stream = (/** @type {string} */ name) => pick(phase.stream, name);
  const sluiceCpuMicros = pick(phase.load, 'sluice').cpuMicrosPerRequest;
  const bareCpuMicros = pick(phase.load, 'bare').cpuMicrosPerRequest;
  const cold = phase.coldKeys;
  return {
    cpuRatio: sluiceCpuMicros / bareCpuMicros,
    sequentialCpuRatio: sequential('sluice').cpuMicrosPerRequest / sequential('bare').cpuMicrosPerRequest,
    sluiceCpuMicros,
    bareCpuMicros,
    addedP50Ms: sequential('sluice').totalMs.p50 - sequential('direct').totalMs.p50,
    addedMeanMs: sequential('sluice').totalMs.mean - sequential('direct').totalMs.mean,
    addedFirstByteP50Ms: stream('sluice').firstByteMs.p50 - stream('direct').firstByteMs.p50,
    addedFirstByteMeanMs: stream('sluice').firstByteMs.mean - stream('direct').firstByteMs.mean,
    bareAddedP50Ms: sequential('bare').totalMs.p50 - sequential('direct').totalMs.p50,
    bareAddedFirstByteP50Ms: stream('bare').firstByteMs.p50 - stream('direct').firstByteMs.p50,
    peakRssMiB: phase.memory.sluicePeakRssBytes / MIB,
    ...(cold
      ? { coldKeyAddedP50Ms: pick(cold, 'sluice').totalMs.p50 - pick(cold, 'direct').totalMs.p50 }
      : {}),
  };
};

/**
 * @typedef {object} Verdict
 * @property {string} name
 * @property {string} limit
 * @property {number} base
 * @property {number} populated
 * @property {boolean} met
 * @property {string} bare  the bare relay's own figures for the same target in the same run ('' when none)
 */

/**
 * @param {Derived} base
 * @param {Derived} populated
 * @returns {Verdict[]}
 */
export const verdicts = (base, populated) => {
  const pair = (/** @type {number} */ left, /** @type {number} */ right) =>
    `${fixed(left, 3)} / ${fixed(right, 3)}`;
  const signed = (/** @type {number} */ value) => `${value >= 0 ? '+' : ''}${fixed(value, 3)}`;
  /** @type {[string, string, number, number, boolean, string?][]} */
  const rows = [
    [
      'Sluice CPU/request ÷ bare relay (load)',
      `≤ ${TARGETS.cpuRatio}×`,
      base.cpuRatio,
      populated.cpuRatio,
      Math.max(base.cpuRatio, populated.cpuRatio) <= TARGETS.cpuRatio,
    ],
    [
      'added p50 latency, non-stream (ms)',
      `≤ ${TARGETS.addedP50Ms} ms`,
      base.addedP50Ms,
      populated.addedP50Ms,
      Math.max(base.addedP50Ms, populated.addedP50Ms) <= TARGETS.addedP50Ms,
      pair(base.bareAddedP50Ms, populated.bareAddedP50Ms),
    ],
    [
      'added p50 time to first byte, stream (ms)',
      `≤ ${TARGETS.addedP50Ms} ms`,
      base.addedFirstByteP50Ms,
      populated.addedFirstByteP50Ms,
      Math.max(base.addedFirstByteP50Ms, populated.addedFirstByteP50Ms) <= TARGETS.addedP50Ms,
      pair(base.bareAddedFirstByteP50Ms, populated.bareAddedFirstByteP50Ms),
    ],
    [
      'Sluice peak RSS (MiB)',
      `≤ ${TARGETS.peakRssMiB} MiB`,
      base.peakRssMiB,
      populated.peakRssMiB,
      Math.max(base.peakRssMiB, populated.peakRssMiB) <= TARGETS.peakRssMiB,
    ],
    [
      'flat: Sluice CPU/request populated ÷ base',
      `≤ ${TARGETS.flatFactor}×`,
      1,
      populated.sluiceCpuMicros / base.sluiceCpuMicros,
      populated.sluiceCpuMicros <= TARGETS.flatFactor * base.sluiceCpuMicros,
      // The bare relay reads no database: its own move between the phases is the machine's.
      `${fixed(populated.bareCpuMicros / base.bareCpuMicros, 3)}×`,
    ],
    [
      'flat: added p50 populated − base (ms)',
      `≤ +max(${TARGETS.flatAddedMs} ms, 25 %)`,
      0,
      populated.addedP50Ms - base.addedP50Ms,
      populated.addedP50Ms - base.addedP50Ms <= Math.max(TARGETS.flatAddedMs, 0.25 * base.addedP50Ms),
      signed(populated.bareAddedP50Ms - base.bareAddedP50Ms),
    ],
  ];
  return rows.map(([name, limit, baseValue, populatedValue, met, bare = '']) => ({
    name,
    limit,
    base: baseValue,
    populated: populatedValue,
    met,
    bare,
  }));
};

/**
 * @param {number} value
 * @param {number} [digits]
 * @returns {string}
 */
const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

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
