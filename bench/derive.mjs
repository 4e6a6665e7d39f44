/**
 * The measured figures turned into the derived ones (ratios, added latency) and the verdicts
 * against the targets; report.mjs prints them.
 */

export const MIB = 1024 * 1024;

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
export const pick = (record, name) => {
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
export const fixed = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
