import { Hono, type Context } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../../http/app-env.js';
import { clientIp } from '../../http/client-ip.js';
import { AppError } from '../../lib/app-error.js';
import { geminiModelList } from '../clients/gemini/index.js';
import { authenticateKey } from '../request/key-auth.js';
import type { RelayRouteDeps } from '../request/relay-dispatch.js';
import { clientErrorOf } from './client-error.js';
import { keyModels } from './model-list.js';

/**
 * Gemini's model routes (`GET /v1beta/models`, `/v1beta/models/{model}`) for Gemini's own clients:
 * the models the key may use, the key as Google's clients send it, errors in Google's shape. Its
 * POST routes are the relay's (relay-http.ts).
 */
export const geminiRoutes = (deps: RelayRouteDeps) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', cors({ origin: '*', allowMethods: ['GET', 'POST', 'OPTIONS'], allowHeaders: ['*'] }));
  const models = async (c: Context<AppEnv>) => {
    const credential = c.req.header('authorization') ?? c.req.header('x-goog-api-key') ?? c.req.query('key');
    const auth = await authenticateKey(deps, credential, clientIp(c, deps.config.trustProxy));
    return geminiModelList(await keyModels(deps.index, auth)).models;
  };
  const inGeminiShape = (c: Context<AppEnv>, error: unknown) => {
    const answer = clientErrorOf(error, c.get('requestId'), 'gemini');
    return c.json(answer.body as object, answer.status as 400);
  };

  routes.get('/models', async (c) => {
    try {
      return c.json({ models: await models(c) });
    } catch (error) {
      return inGeminiShape(c, error);
    }
  });
  routes.get('/models/:model', async (c) => {
    try {
      const id = c.req.param('model').replace(/^models\//, '');
      const model = (await models(c)).find((candidate) => candidate.name === `models/${id}`);
      if (!model)
        throw new AppError('model_not_found', `models/${id} is not found`, 404, 'invalid_request_error');
      return c.json(model);
    } catch (error) {
      return inGeminiShape(c, error);
    }
  });
  return routes;
};
