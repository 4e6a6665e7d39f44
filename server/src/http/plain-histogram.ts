import type { Registry } from 'prom-client';

/** One sample of prom-client's exposition. */
export type MetricValue = { value: number; labels: Record<string, string | number>; metricName?: string };

/**
 * A histogram series counted in plain numbers: observations per bucket (not cumulative; the last
 * slot is +Inf), their sum and count. prom-client's own Histogram hashes the label set on every
 * observation, which the relay would pay on every request; these are turned into its exposition
 * only when /metrics is read.
 */
export interface PlainHistogram {
  readonly buckets: number[];
  sum: number;
  count: number;
}

export const plainHistogram = (bounds: readonly number[]): PlainHistogram => ({
  buckets: new Array<number>(bounds.length + 1).fill(0),
  sum: 0,
  count: 0,
});

export const observeInto = (histogram: PlainHistogram, bounds: readonly number[], value: number): void => {
  let bucket = 0;
  while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket += 1;
  histogram.buckets[bucket] = (histogram.buckets[bucket] ?? 0) + 1;
  histogram.sum += value;
  histogram.count += 1;
};

/** A series' samples as Prometheus exposes a histogram: cumulative buckets, +Inf, sum and count. */
export const histogramValues = (
  name: string,
  bounds: readonly number[],
  histogram: PlainHistogram,
  labels: Record<string, string | number>,
): MetricValue[] => {
  const values: MetricValue[] = [];
  let cumulative = 0;
  bounds.forEach((bound, index) => {
    cumulative += histogram.buckets[index] ?? 0;
    values.push({ value: cumulative, labels: { ...labels, le: bound }, metricName: `${name}_bucket` });
  });
  values.push({ value: histogram.count, labels: { ...labels, le: '+Inf' }, metricName: `${name}_bucket` });
  values.push({ value: histogram.sum, labels, metricName: `${name}_sum` });
  values.push({ value: histogram.count, labels, metricName: `${name}_count` });
  return values;
};

/** A metric the registry reads through `values` and clears through `reset` (its type names prom-client's classes). */
export const registerPlainMetric = (
  registry: Registry,
  metric: {
    readonly name: string;
    readonly help: string;
    readonly type: 'counter' | 'histogram';
    readonly values: () => MetricValue[];
    readonly reset: () => void;
  },
): void => {
  const { name, help, type, values, reset } = metric;
  registry.registerMetric({
    name,
    help,
    type,
    aggregator: 'sum',
    get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
    reset,
  } as unknown as Parameters<Registry['registerMetric']>[0]);
};
