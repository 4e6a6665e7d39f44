import type { Registry } from 'prom-client';

/** From 0.1 ms: a relay's own time is a fraction of a millisecond when all is well. */
export const OVERHEAD_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
] as const;

const NAME = 'sluice_relay_overhead_seconds';

interface Series {
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

type Value = { value: number; labels: Record<string, string | number>; metricName?: string };

/**
 * Sluice's own time in a relayed answer, by route: from the request's arrival to the client's first
 * byte (a whole answer's end), less the time spent waiting on upstreams (each failed attempt whole,
 * and the answering one from its request sent to the last upstream byte it had read by then). What
 * TensorZero calls its latency overhead; counted in plain numbers, read out when /metrics is.
 */
export const registerOverheadMetric = (registry: Registry) => {
  const series = new Map<string, Series>();
  const observe = (route: string, seconds: number): void => {
    let entry = series.get(route);
    if (!entry) {
      entry = { buckets: new Array<number>(OVERHEAD_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      series.set(route, entry);
    }
    let bucket = 0;
    while (bucket < OVERHEAD_BUCKETS.length && seconds > (OVERHEAD_BUCKETS[bucket] as number)) bucket += 1;
    entry.buckets[bucket] = (entry.buckets[bucket] ?? 0) + 1;
    entry.sum += seconds;
    entry.count += 1;
  };
  const values = (): Value[] => {
    const out: Value[] = [];
    for (const [route, entry] of series) {
      let cumulative = 0;
      OVERHEAD_BUCKETS.forEach((bound, index) => {
        cumulative += entry.buckets[index] ?? 0;
        out.push({ value: cumulative, labels: { route, le: bound }, metricName: `${NAME}_bucket` });
      });
      out.push({ value: entry.count, labels: { route, le: '+Inf' }, metricName: `${NAME}_bucket` });
      out.push({ value: entry.sum, labels: { route }, metricName: `${NAME}_sum` });
      out.push({ value: entry.count, labels: { route }, metricName: `${NAME}_count` });
    }
    return out;
  };
  const help =
    "Sluice's own time in a relayed answer (to the client's first byte, or a whole answer's end) less the time spent waiting on upstreams, by route.";
  registry.registerMetric({
    name: NAME,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => Promise.resolve({ name: NAME, help, type: 'histogram', aggregator: 'sum', values: values() }),
    reset: () => series.clear(),
  } as unknown as Parameters<Registry['registerMetric']>[0]);
  return { observe };
};
