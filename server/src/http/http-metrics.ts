import type { Registry } from 'prom-client';
import {
  histogramValues,
  observeInto,
  plainHistogram,
  registerPlainMetric,
  type MetricValue,
  type PlainHistogram,
} from './plain-histogram.js';

const BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30] as const;

interface Series {
  readonly labels: { surface: string; method: string; route: string };
  /** Requests by status. */
  readonly statuses: Map<number, number>;
  readonly duration: PlainHistogram;
}

/**
 * The request counter and duration histogram, counted in plain numbers and turned into
 * prom-client's exposition only when /metrics is read (plain-histogram.ts).
 */
export const registerHttpMetrics = (registry: Registry) => {
  const series = new Map<string, Series>();

  const observe = (surface: string, method: string, route: string, status: number, seconds: number): void => {
    const key = `${surface} ${method} ${route}`;
    let entry = series.get(key);
    if (!entry) {
      entry = { labels: { surface, method, route }, statuses: new Map(), duration: plainHistogram(BUCKETS) };
      series.set(key, entry);
    }
    entry.statuses.set(status, (entry.statuses.get(status) ?? 0) + 1);
    observeInto(entry.duration, BUCKETS, seconds);
  };
  const reset = () => series.clear();

  registerPlainMetric(registry, {
    name: 'sluice_http_requests_total',
    help: 'HTTP requests answered, by surface, method, route and status.',
    type: 'counter',
    values: () => {
      const values: MetricValue[] = [];
      for (const entry of series.values())
        for (const [status, count] of entry.statuses)
          values.push({ value: count, labels: { ...entry.labels, status: String(status) } });
      return values;
    },
    reset,
  });

  const duration = 'sluice_http_request_duration_seconds';
  registerPlainMetric(registry, {
    name: duration,
    help: 'Time to answer an HTTP request (to the first byte for streams).',
    type: 'histogram',
    values: () =>
      [...series.values()].flatMap((entry) =>
        histogramValues(duration, BUCKETS, entry.duration, entry.labels),
      ),
    reset,
  });

  return { observe };
};
