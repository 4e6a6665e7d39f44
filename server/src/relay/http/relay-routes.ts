import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { AppEnv } from '../../http/app-env.js';
import { AppError, relayError } from '../../lib/app-error.js';
import { clientIp } from '../../http/client-ip.js';
import { authenticateKey, type KeyAuth } from '../request/key-auth.js';
import { clientErrorOf } from './client-error.js';
import { anthropicModels, modelList } from './model-list.js';
import { proxyRoute } from './proxy-route.js';
import { tooLarge } from './request-body.js';
import type { RelayRouteDeps } from '../request/relay-dispatch.js';

/** OpenAI's other paths (any method): an OpenAI-shaped 501, after the key is checked. */
const NOT_IMPLEMENTED = [
  '/images/edits',
  '/images/variations',
  '/edits',
  '/files',
  '/fine_tuning',
  '/fine-tunes',
  '/assistants',
  '/threads',
  '/batches',
  '/responses',
  '/vector_stores',
  '/uploads',
  '/realtime',
  '/organization',
  '/evals',
  '/containers',
  '/conversations',
  '/videos',
  '/chatkit',
].flatMap((path) => [path, `${path}/*`]);

const notImplemented = () => relayError(501, 'api_not_implemented', 'API not implemented');

/**
 * The OpenAI-compatible gateway's other /v1 routes (the POST relay routes are served by
 * relay-http.ts). Errors are thrown: the app's one translation gives them OpenAI's shape and the
 * request id.
 */
export const relayRoutes = (deps: RelayRouteDeps) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use(
    '*',
    cors({ origin: '*', allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'], allowHeaders: ['*'] }),
  );
  // Anthropic's clients send their key in x-api-key.
  const authenticate = async (c: Context<AppEnv>): Promise<KeyAuth> =>
    authenticateKey(
      deps,
      c.req.header('authorization') ?? c.req.header('x-api-key'),
      clientIp(c, deps.config.trustProxy),
    );

  routes.get('/models', async (c) => {
    // An Anthropic client (it sends anthropic-version) gets the list, and its errors, in its shape.
    if (!c.req.header('anthropic-version')) return c.json(await modelList(deps.index, await authenticate(c)));
    try {
      return c.json(await anthropicModels(deps.index, await authenticate(c)));
    } catch (error) {
      const answer = clientErrorOf(error, c.get('requestId'), 'anthropic');
      return c.json(answer.body as object, answer.status as 400);
    }
  });
  // One model of those the key may use: the same list as GET /v1/models.
  routes.get('/models/:model', async (c) => {
    const id = c.req.param('model');
    const { data } = await modelList(deps.index, await authenticate(c));
    const model = data.find((candidate) => candidate.id === id);
    if (!model)
      throw new AppError(
        'model_not_found',
        `The model '${id}' does not exist`,
        404,
        'invalid_request_error',
        'model',
      );
    return c.json(model);
  });
  routes.delete('/models/:model', async (c) => {
    await authenticate(c);
    throw notImplemented();
  });
  // Stored chat completions (GET, POST to update, DELETE); POST /v1/chat/completions itself is relayed.
  routes.get('/chat/completions', async (c) => {
    await authenticate(c);
    throw notImplemented();
  });
  routes.all('/chat/completions/*', async (c) => {
    await authenticate(c);
    throw notImplemented();
  });
  routes.all(
    '/oneapi/proxy/:channelid/*',
    bodyLimit({
      maxSize: deps.config.maxRequestBodyBytes,
      onError: () => {
        throw tooLarge(deps.config.maxRequestBodyBytes);
      },
    }),
    proxyRoute(deps),
  );
  // The Responses API over a WebSocket (Codex CLI asks for it first: GET with Upgrade: websocket).
  // Sluice serves it over HTTP only; 426 makes Codex fall back to POST at once, where any other
  // refusal costs it five retries with backoff (about 6 s) first.
  routes.get('/responses', async (c, next) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') return next();
    await authenticate(c);
    throw relayError(
      426,
      'websocket_not_supported',
      'the Responses API is served over HTTP here: POST /v1/responses',
      'invalid_request_error',
    );
  });
  for (const path of NOT_IMPLEMENTED)
    routes.all(path, async (c) => {
      await authenticate(c);
      throw notImplemented();
    });
  return routes;
};
