import type { MiddlewareHandler } from 'hono';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly middleware: MiddlewareHandler;
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
  return {
    registry,
    middleware: async (c, next) => {
      const started = performance.now();
      await next();
      const surface = surfaceOf(c.req.path);
      const route = surface === 'web' ? '*' : c.req.routePath;
      requests.inc({ surface, method: c.req.method, route, status: String(c.res.status) });
      duration.observe({ surface, method: c.req.method, route }, (performance.now() - started) / 1000);
    },
  };
};
