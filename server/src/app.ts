import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Logger } from 'pino';
import { databaseUnavailable, isDatabaseUnavailable } from './db/database-unavailable.js';
import { AppError } from './lib/app-error.js';
import { createRequestId } from './lib/time.js';
import type { AppEnv } from './http/app-env.js';
import { consoleStatic } from './api/console-static.js';
import type { Metrics } from './http/metrics.js';
import { loadSession } from './api/middleware/auth.js';
import { auditTrail } from './api/middleware/audit-trail.js';
import { rateLimit } from './api/middleware/rate-limit.js';
import { API_ROUTES, type RouteDeps } from './api/api-routes.js';
import { billingRoutes } from './relay/http/billing-routes.js';
import { keyRoutes } from './relay/http/key-routes.js';
import type { RelayRouteDeps } from './relay/request/relay-dispatch.js';
import { openAiErrorOf } from './relay/http/openai-error.js';
import { geminiRoutes } from './relay/http/gemini-routes.js';
import { relayRoutes } from './relay/http/relay-routes.js';
import type { Services } from './services/services.js';

export interface AppDeps {
  readonly services: Services;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly startTime: number;
  readonly relay: RelayRouteDeps;
  readonly channelOperations: RouteDeps['channelOperations'];
}

export const REQUEST_ID_HEADER = 'X-Oneapi-Request-Id';
/** Sluice's own name for the same id, on every answer (the relay's too: relay-response.ts, relay-http.ts). */
export const SLUICE_REQUEST_ID_HEADER = 'X-Sluice-Request-Id';
const API_BODY_LIMIT = 4 * 1024 * 1024;
const DEFAULT_WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

const openAiError = (c: Context, status: 404, message: string, type = 'invalid_request_error') =>
  c.json({ error: { message, type, param: '', code: '' } }, status);

/** Builds the whole HTTP surface: /api, /metrics, the console; one onError, one notFound. */
export const createApp = (deps: AppDeps) => {
  const { services, logger, metrics } = deps;
  const config = services.deps.config;
  const cache = services.deps.cache;
  const app = new Hono<AppEnv>({ strict: false });
  // Redis away: the limiter lets requests through, counted, with a warning at most once a minute.
  let warnedAt = -Infinity;
  const limiterFailed = (error: unknown) => {
    metrics.limiterFailedOpen();
    if (performance.now() - warnedAt < 60_000) return;
    warnedAt = performance.now();
    logger.warn({ err: error }, 'the rate limiter cannot reach its store: requests pass unlimited');
  };
  const limiter = (mark: string, limit: number, windowSeconds: number) =>
    rateLimit(cache, { mark, limit, windowSeconds }, config.trustProxy, config.debug, limiterFailed);
  const critical = limiter('CT', config.criticalRateLimit, 1200);

  app.use('*', async (c, next) => {
    const requestId = createRequestId();
    c.set('requestId', requestId);
    c.header(REQUEST_ID_HEADER, requestId);
    c.header(SLUICE_REQUEST_ID_HEADER, requestId);
    const started = performance.now();
    await next();
    logger.info(
      {
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    );
  });
  app.use('*', metrics.middleware);

  app.get('/metrics', async (c) => {
    c.header('Content-Type', metrics.registry.contentType);
    return c.body(await metrics.registry.metrics());
  });

  const api = new Hono<AppEnv>({ strict: false });
  api.use('*', limiter('GA', config.globalApiRateLimit, 180));
  api.use(
    '*',
    bodyLimit({
      maxSize: API_BODY_LIMIT,
      onError: (c) => {
        c.header('Connection', 'close');
        return c.json({ success: false, message: 'the request body is too large' }, 413);
      },
    }),
  );
  api.use('*', loadSession(services));
  api.use('*', auditTrail(services));
  for (const [path, build] of API_ROUTES)
    api.route(
      path,
      build({ services, critical, startTime: deps.startTime, channelOperations: deps.channelOperations }),
    );
  app.route('/api', api);
  const billing = billingRoutes(deps.relay);
  app.route('/dashboard/billing', billing);
  app.route('/v1/dashboard/billing', billing);
  app.route('/v1/dashboard/key', keyRoutes(deps.relay));
  app.route('/v1', relayRoutes(deps.relay));
  app.route('/v1beta', geminiRoutes(deps.relay));

  const serveConsole = consoleStatic(config.webDistPath || DEFAULT_WEB_DIST);
  const web = limiter('GW', config.globalWebRateLimit, 180);
  app.get('*', web, async (c, next) => {
    if (c.req.path.startsWith('/api/') || c.req.path.startsWith('/v1/') || c.req.path === '/api')
      return next();
    if (config.nodeType === 'slave' && config.frontendBaseUrl)
      return c.redirect(config.frontendBaseUrl + c.req.path + (new URL(c.req.url).search || ''), 301);
    return serveConsole(c);
  });

  app.notFound((c) => openAiError(c, 404, `Invalid URL (${c.req.method} ${c.req.path})`));

  app.onError((error, c) => {
    const requestId = c.get('requestId');
    if (c.req.path.startsWith('/v1/') || c.req.path.startsWith('/dashboard/')) {
      const translated = openAiErrorOf(error, requestId);
      if (translated.unexpected) logger.error({ err: error, requestId, path: c.req.path }, 'unhandled error');
      if (translated.unavailable)
        logger.warn({ err: error, requestId, path: c.req.path }, 'database unavailable');
      return c.json(translated.body, translated.status as 400);
    }
    if (!(error instanceof AppError) && isDatabaseUnavailable(error)) {
      logger.warn({ err: error, requestId, path: c.req.path }, 'database unavailable');
      return c.json({ success: false, message: databaseUnavailable().message }, 503);
    }
    if (error instanceof AppError) {
      const status =
        error.status === 401 || error.status === 429 || error.status === 413 ? error.status : 200;
      return c.json({ success: false, message: error.message }, status);
    }
    logger.error({ err: error, requestId, path: c.req.path }, 'unhandled error');
    return c.json(
      { success: false, message: 'internal server error, please contact the administrator' },
      500,
    );
  });

  return app;
};

export type App = ReturnType<typeof createApp>;
