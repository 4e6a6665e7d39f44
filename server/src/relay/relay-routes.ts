import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../api/app-env.js';
import { clientIp } from '../api/middleware/rate-limit.js';
import { authenticateKey, type KeyAuth } from './key-auth.js';
import { modelList, modelObject } from './model-list.js';
import type { RelayRouteDeps } from './relay-dispatch.js';

const NOT_IMPLEMENTED = [
  '/v1/images/edits',
  '/v1/images/variations',
  '/v1/edits',
  '/v1/files/*',
  '/v1/files',
  '/v1/fine_tuning/*',
  '/v1/assistants/*',
  '/v1/assistants',
  '/v1/threads/*',
  '/v1/threads',
  '/v1/batches/*',
  '/v1/batches',
  '/v1/responses/*',
  '/v1/responses',
];

/** The OpenAI-compatible gateway's other /v1 routes (the POST relay routes are served by relay-http.ts). */
export const relayRoutes = (deps: RelayRouteDeps) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use(
    '*',
    cors({ origin: '*', allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'], allowHeaders: ['*'] }),
  );
  const authenticate = async (c: Context<AppEnv>): Promise<KeyAuth> =>
    authenticateKey(deps, c.req.header('authorization'), clientIp(c, deps.config.trustProxy));

  routes.get('/models', async (c) => c.json(await modelList(deps.index, await authenticate(c))));
  routes.get('/models/:model', async (c) => {
    await authenticate(c);
    const model = modelObject(c.req.param('model'));
    if (!model)
      return c.json(
        {
          error: {
            message: `The model '${c.req.param('model')}' does not exist`,
            type: 'invalid_request_error',
            param: 'model',
            code: 'model_not_found',
          },
        },
        404,
      );
    return c.json(model);
  });

  for (const path of NOT_IMPLEMENTED) {
    routes.all(path.replace(/^\/v1/, ''), async (c) => {
      await authenticate(c);
      return c.json(
        {
          error: {
            message: 'API not implemented',
            type: 'one_api_error',
            param: '',
            code: 'api_not_implemented',
          },
        },
        501,
      );
    });
  }
  routes.delete('/models/:model', async (c) => {
    await authenticate(c);
    return c.json(
      {
        error: {
          message: 'API not implemented',
          type: 'one_api_error',
          param: '',
          code: 'api_not_implemented',
        },
      },
      501,
    );
  });
  return routes;
};
