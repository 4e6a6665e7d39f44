import type { Registry } from 'prom-client';

const BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30] as const;

interface Series {
  readonly labels: { surface: string; method: string; route: string };
  /** Requests by status. */
  readonly statuses: Map<number, number>;
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

type Value = { value: number; labels: Record<string, string | number>; metricName?: string };

/**
 * The request counter and duration histogram, counted in plain numbers and turned into
 * prom-client's exposition only when /metrics is read: prom-client's own Counter and Histogram
 * hash the label set on every observation, which the relay would pay on every request.
 */
export const registerHttpMetrics = (registry: Registry) => {
  const series = new Map<string, Series>();

  const observe = (surface: string, method: string, route: string, status: number, seconds: number): void => {
    const key = `${surface} ${method} ${route}`;
    let entry = series.get(key);
    if (!entry) {
      entry = {
        labels: { surface, method, route },
        statuses: new Map(),
        buckets: new Array<number>(BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      series.set(key, entry);
    }
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > (BUCKETS[bucket] as number)) bucket += 1;
    entry.buckets[bucket] = (entry.buckets[bucket] ?? 0) + 1;
    entry.sum += seconds;
    entry.count += 1;
  };

  /** A metric the registry reads through get() and clears through reset() (its type names prom-client's classes). */
  const register = (name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]) =>
    registry.registerMetric({
      name,
      help,
      type,
      aggregator: 'sum',
      get: () => Promise.resolve({ name, help, type, aggregator: 'sum', values: values() }),
      reset: () => series.clear(),
    } as unknown as Parameters<Registry['registerMetric']>[0]);

  register(
    'sluice_http_requests_total',
    'HTTP requests answered, by surface, method, route and status.',
    'counter',
    () => {
      const values: Value[] = [];
      for (const entry of series.values())
        for (const [status, count] of entry.statuses)
          values.push({ value: count, labels: { ...entry.labels, status: String(status) } });
      return values;
    },
  );

  const duration = 'sluice_http_request_duration_seconds';
  register(duration, 'Time to answer an HTTP request (to the first byte for streams).', 'histogram', () => {
    const values: Value[] = [];
    for (const entry of series.values()) {
      let cumulative = 0;
      BUCKETS.forEach((bound, index) => {
        cumulative += entry.buckets[index] ?? 0;
        values.push({
          value: cumulative,
          labels: { ...entry.labels, le: bound },
          metricName: `${duration}_bucket`,
        });
      });
      values.push({
        value: entry.count,
        labels: { ...entry.labels, le: '+Inf' },
        metricName: `${duration}_bucket`,
      });
      values.push({ value: entry.sum, labels: entry.labels, metricName: `${duration}_sum` });
      values.push({ value: entry.count, labels: entry.labels, metricName: `${duration}_count` });
    }
    return values;
  });

  return { observe };
};
