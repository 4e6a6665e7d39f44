/**
 * Sluice's own time per answered relay request, as it reports it in /metrics
 * (`sluice_relay_overhead_seconds`: the time to the client's first byte less the time on upstreams).
 * It has none of the client's or the double's noise, only Sluice's own (its thread, its GC): the
 * concurrency sweep gives it beside the added latency it measures against the direct call.
 */

import { fetch } from 'undici';

const NAME = 'sluice_relay_overhead_seconds_bucket';

/**
 * The histogram's cumulative counts by upper bound (seconds; Infinity for +Inf), summed over routes.
 * @param {string} origin
 * @returns {Promise<Map<number, number>>}
 */
export const readOverhead = async (origin) => {
  const text = await (await fetch(`${origin}/metrics`)).text();
  /** @type {Map<number, number>} */
  const cumulative = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${NAME}{`)) continue;
    const bound = /le="([^"]+)"/.exec(line)?.[1];
    if (bound === undefined) continue;
    const key = bound === '+Inf' ? Number.POSITIVE_INFINITY : Number(bound);
    cumulative.set(key, (cumulative.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return cumulative;
};

/**
 * @typedef {object} OwnTime
 * @property {number} count  requests observed
 * @property {number} p50Ms  interpolated within its bucket, as Prometheus's histogram_quantile
 * @property {number} p99Ms
 * @property {number} within1Ms  the share of requests whose own time was at most 1 ms (a bucket bound)
 */

/**
 * What was observed between two readings.
 * @param {Map<number, number>} before
 * @param {Map<number, number>} after
 * @returns {OwnTime}
 */
export const overheadBetween = (before, after) => {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const cumulative = bounds.map((bound) => (after.get(bound) ?? 0) - (before.get(bound) ?? 0));
  const count = cumulative[cumulative.length - 1] ?? 0;
  const quantile = (/** @type {number} */ q) => {
    if (count === 0) return Number.NaN;
    const rank = q * count;
    for (const [index, bound] of bounds.entries()) {
      const upTo = cumulative[index] ?? 0;
      if (upTo < rank) continue;
      const lower = index === 0 ? 0 : (bounds[index - 1] ?? 0);
      if (!Number.isFinite(bound)) return lower * 1000;
      const below = index === 0 ? 0 : (cumulative[index - 1] ?? 0);
      const inBucket = upTo - below;
      const fraction = inBucket > 0 ? (rank - below) / inBucket : 1;
      return (lower + (bound - lower) * fraction) * 1000;
    }
    return Number.NaN;
  };
  const atOneMs = bounds.indexOf(0.001);
  return {
    count,
    p50Ms: quantile(0.5),
    p99Ms: quantile(0.99),
    within1Ms: count > 0 && atOneMs >= 0 ? (cumulative[atOneMs] ?? 0) / count : Number.NaN,
  };
};
