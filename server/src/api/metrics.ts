import type { MiddlewareHandler } from 'hono';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly middleware: MiddlewareHandler;
  /** Counts one answered request (for handlers outside Hono: the relay's hot routes). */
  readonly observe: (surface: string, method: string, route: string, status: number, seconds: number) => void;
}

const surfaceOf = (path: string): string =>
  path.startsWith('/api/')
    ? 'api'
    : path.startsWith('/v1/')
      ? 'relay'
      : path === '/metrics'
        ? 'metrics'
        : 'web';

/** Prometheus metrics on a registry of this app's own (no global state). */
export const createMetrics = (): Metrics => {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'sluice_' });
  const requests = new Counter({
    name: 'sluice_http_requests_total',
    help: 'HTTP requests answered, by surface, method, route and status.',
    labelNames: ['surface', 'method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'sluice_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (to the first byte for streams).',
    labelNames: ['surface', 'method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
    registers: [registry],
  });
  // One child per label set, kept: prom-client hashes the label object on every unlabelled call.
  const series = new Map<string, { count: () => void; time: (seconds: number) => void }>();
  const observe: Metrics['observe'] = (surface, method, route, status, seconds) => {
    const key = `${surface} ${method} ${route} ${status}`;
    let entry = series.get(key);
    if (!entry) {
      const counter = requests.labels({ surface, method, route, status: String(status) });
      const histogram = duration.labels({ surface, method, route });
      entry = { count: () => counter.inc(), time: (value) => histogram.observe(value) };
      series.set(key, entry);
    }
    entry.count();
    entry.time(seconds);
  };
  return {
    registry,
    observe,
    middleware: async (c, next) => {
      const started = performance.now();
      await next();
      const surface = surfaceOf(c.req.path);
      observe(
        surface,
        c.req.method,
        surface === 'web' ? '*' : c.req.routePath,
        c.res.status,
        (performance.now() - started) / 1000,
      );
    },
  };
};
