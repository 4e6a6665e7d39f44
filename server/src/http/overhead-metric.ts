import type { Registry } from 'prom-client';
import {
  histogramValues,
  observeInto,
  plainHistogram,
  registerPlainMetric,
  type PlainHistogram,
} from './plain-histogram.js';

/** From 0.1 ms: a relay's own time is a fraction of a millisecond when all is well. */
export const OVERHEAD_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
] as const;

const NAME = 'sluice_relay_overhead_seconds';

/**
 * Sluice's own time in a relayed answer, by route: from the request's arrival to the client's first
 * byte (a whole answer's end), less the time spent waiting on upstreams (each failed attempt whole,
 * and the answering one from its request sent to the last upstream byte it had read by then). What
 * TensorZero calls its latency overhead; counted in plain numbers (plain-histogram.ts).
 */
export const registerOverheadMetric = (registry: Registry) => {
  const series = new Map<string, PlainHistogram>();
  const observe = (route: string, seconds: number): void => {
    let histogram = series.get(route);
    if (!histogram) {
      histogram = plainHistogram(OVERHEAD_BUCKETS);
      series.set(route, histogram);
    }
    observeInto(histogram, OVERHEAD_BUCKETS, seconds);
  };
  registerPlainMetric(registry, {
    name: NAME,
    help: "Sluice's own time in a relayed answer (to the client's first byte, or a whole answer's end) less the time spent waiting on upstreams, by route.",
    type: 'histogram',
    values: () =>
      [...series].flatMap(([route, histogram]) =>
        histogramValues(NAME, OVERHEAD_BUCKETS, histogram, { route }),
      ),
    reset: () => series.clear(),
  });
  return { observe };
};
