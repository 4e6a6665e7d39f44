import { gunzipSync } from 'node:zlib';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import type { AppEnv } from '../api/app-env.js';
import { clientIp } from '../api/middleware/rate-limit.js';
import type { Config } from '../config/env.js';
import { relayError } from '../lib/app-error.js';
import type { ChangeFeed } from '../services/change-feed.js';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { authenticateKey, type KeyAuth } from './key-auth.js';
import { modelList, modelObject } from './model-list.js';
import { runPipeline, type PipelineDeps } from './pipeline.js';
import type { RelayIndex } from './relay-index.js';
import { RELAY_ROUTES, readRelayRequest } from './relay-request.js';
import { attemptOrder } from './select-channel.js';

export interface RelayRouteDeps extends PipelineDeps {
  readonly config: Config;
  readonly db: Kysely<Tables>;
  readonly index: RelayIndex;
  readonly changes: ChangeFeed;
}

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

const HEADERS_FOR_ADAPTORS = ['anthropic-version', 'anthropic-beta'];

/** The body as sent, or inflated when the client sent it gzip-encoded (bounded like a plain body). */
const readBody = async (c: Context<AppEnv>, limit: number): Promise<Uint8Array> => {
  const raw = new Uint8Array(await c.req.arrayBuffer());
  if ((c.req.header('content-encoding') ?? '').trim().toLowerCase() !== 'gzip') return raw;
  try {
    return gunzipSync(raw, { maxOutputLength: limit });
  } catch (error) {
    if (error instanceof RangeError)
      throw relayError(
        413,
        'request_too_large',
        `the request body is larger than ${limit} bytes`,
        'invalid_request_error',
      );
    throw relayError(
      400,
      'invalid_gzip',
      'the gzip-encoded body could not be decoded',
      'invalid_request_error',
    );
  }
};

/** The OpenAI-compatible gateway under /v1. */
export const relayRoutes = (deps: RelayRouteDeps) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use(
    '*',
    cors({ origin: '*', allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'], allowHeaders: ['*'] }),
  );
  routes.use(
    '*',
    bodyLimit({
      maxSize: deps.config.maxRequestBodyBytes,
      // The unread rest of the body makes the connection unusable: tell the client to open a new one.
      onError: (c) => {
        c.header('Connection', 'close');
        return c.json(
          {
            error: {
              message: `the request body is larger than ${deps.config.maxRequestBodyBytes} bytes (request id: ${c.get('requestId')})`,
              type: 'invalid_request_error',
              param: '',
              code: 'request_too_large',
            },
          },
          413,
        );
      },
    }),
  );

  const authenticate = (c: Context<AppEnv>): Promise<KeyAuth> =>
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

  for (const route of RELAY_ROUTES) {
    routes.post(route.path.replace(/^\/v1/, ''), async (c) => {
      const auth = await authenticate(c);
      const raw = await readBody(c, deps.config.maxRequestBodyBytes);
      const request = await readRelayRequest(
        route,
        raw,
        c.req.header('content-type') ?? '',
        c.req.param('model'),
      );
      const allowed = (auth.token.models ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '');
      if (allowed.length > 0 && !allowed.includes(request.model))
        throw relayError(403, 'model_not_allowed', `this token may not use model ${request.model}`);
      const options = deps.options.values;
      let order;
      if (auth.channelId !== undefined) {
        const row = await deps.index.channel(auth.channelId);
        if (!row) throw relayError(400, 'invalid_channel', 'invalid channel id');
        if (row.status !== CHANNEL_STATUS.enabled)
          throw relayError(403, 'channel_disabled', 'this channel is disabled');
        order = [{ row, priority: row.priority ?? 0, weight: row.weight ?? 0 }];
      } else {
        const group = auth.user.group || 'default';
        const candidates = await deps.index.candidates(group, request.model);
        if (candidates.length === 0)
          throw relayError(
            503,
            'no_channel',
            `no available channel for model ${request.model} under group ${group}`,
          );
        order = attemptOrder(candidates, 1 + Math.max(0, options.RetryTimes));
      }
      const clientHeaders: Record<string, string> = {};
      for (const name of HEADERS_FOR_ADAPTORS) {
        const value = c.req.header(name);
        if (value) clientHeaders[name] = value;
      }
      return runPipeline(deps, {
        auth,
        request,
        order,
        requestId: c.get('requestId'),
        clientSignal: c.req.raw.signal,
        clientHeaders,
      });
    });
  }

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
