import type { MiddlewareHandler } from 'hono';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { registerHttpMetrics } from './http-metrics.js';
import { registerOverheadMetric } from './overhead-metric.js';

export interface Metrics {
  readonly registry: Registry;
  readonly middleware: MiddlewareHandler;
  /** Counts one answered request (for handlers outside Hono: the relay's hot routes). */
  readonly observe: (surface: string, method: string, route: string, status: number, seconds: number) => void;
  /** Counts a check the per-IP limiter let through because its store (Redis) did not answer. */
  readonly limiterFailedOpen: () => void;
  /** Counts a relay rate limit check its store (Redis) could not answer: let through or refused. */
  readonly relayLimiterUnavailable: (outcome: 'open' | 'closed') => void;
  /** Observes the seconds from an answer's end to its settlement's commit. */
  readonly billingLag: (seconds: number) => void;
  /** Observes Sluice's own seconds in a relayed answer (overhead-metric.ts), by route. */
  readonly relayOverhead: (route: string, seconds: number) => void;
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
  const { observe } = registerHttpMetrics(registry);
  const overhead = registerOverheadMetric(registry);
  const failedOpen = new Counter({
    name: 'sluice_rate_limit_failed_open_total',
    help: 'Requests the per-IP rate limiter let through because its store (Redis) could not answer',
    registers: [registry],
  });
  const relayLimiter = new Counter({
    name: 'sluice_relay_rate_limit_store_failures_total',
    help: 'Relay rate limit checks whose store (Redis) could not answer, by outcome: let through (open) or refused (closed)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const lag = new Histogram({
    name: 'sluice_billing_lag_seconds',
    help: 'Seconds from the end of an answer to the commit of its settlement (balances and log row)',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return {
    registry,
    observe,
    limiterFailedOpen: () => failedOpen.inc(),
    relayLimiterUnavailable: (outcome) => relayLimiter.inc({ outcome }),
    billingLag: (seconds) => lag.observe(seconds),
    relayOverhead: overhead.observe,
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
