import { isAdminRole } from '@sluice/contract/roles';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import type { Context } from 'hono';
import type { AppEnv } from '../../http/app-env.js';
import { clientIp } from '../../http/client-ip.js';
import { relayError } from '../../lib/app-error.js';
import { providerOf } from '../providers/registry.js';
import { channelMetaOf } from '../routing/channel-meta.js';
import { authenticateKey } from '../request/key-auth.js';
import type { RelayRouteDeps } from '../request/relay-dispatch.js';

/** Headers that belong to one connection, or that Sluice sets itself: never passed on. */
const NOT_FORWARDED = new Set([
  'host',
  'content-length',
  'accept-encoding',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-connection',
  'authorization',
]);
const NOT_ANSWERED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'trailer']);

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * one-api's `ANY /v1/oneapi/proxy/{channel id}/{path}`: the request goes as it came to
 * `<channel base URL>/{path}` (query included) with the channel's key as `Authorization`, and the
 * answer comes back as it is, streamed. Nothing is billed or logged. one-api let any key use any
 * channel this way (free, unmetered access to every account); here only an administrator's key may.
 */
export const proxyRoute = (deps: RelayRouteDeps) => async (c: Context<AppEnv>) => {
  const auth = await authenticateKey(
    deps,
    c.req.header('authorization'),
    clientIp(c, deps.config.trustProxy),
  );
  if (!isAdminRole(auth.user.role))
    throw relayError(403, 'proxy_forbidden', 'only an administrator’s key may use the proxy');
  // The path as it came, still encoded: /v1/oneapi/proxy/{id}/{target…}. An id written any other way
  // than in digits (%31 for 1, say) is refused, so the target is always the rest after it.
  const url = new URL(c.req.url);
  const [, , , , id = '', ...rest] = url.pathname.split('/');
  const row = /^\d{1,9}$/.test(id) ? await deps.index.channel(Number(id)) : undefined;
  if (!row) throw relayError(400, 'invalid_channel', 'invalid channel id');
  if (row.status !== CHANNEL_STATUS.enabled)
    throw relayError(403, 'channel_disabled', 'this channel is disabled');
  const channel = channelMetaOf(row, providerOf(row.type));
  if (channel.baseUrl === '') throw relayError(400, 'invalid_channel', 'the channel has no base URL');
  const method = c.req.method.toUpperCase();
  if (!METHODS.has(method)) throw relayError(405, 'method_not_allowed', `method ${method} is not proxied`);

  const target = `/${rest.join('/')}`;
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => {
    if (!NOT_FORWARDED.has(name)) headers[name] = value;
  });
  headers['authorization'] = channel.key;
  // The size is bounded by the route's body limit (MAX_REQUEST_BODY_MB).
  const body = method === 'GET' || method === 'HEAD' ? null : new Uint8Array(await c.req.arrayBuffer());

  let response;
  try {
    response = await deps.upstream.call(
      method,
      channel.baseUrl + target + url.search,
      headers,
      body,
      c.req.raw.signal,
    );
  } catch {
    throw relayError(502, 'do_request_failed', 'the upstream could not be reached');
  }
  if (response.status < 200 || response.status > 599) {
    response.body.destroy();
    throw relayError(502, 'bad_response', `the upstream answered status ${response.status}`);
  }
  const answer = new Headers();
  for (const [name, value] of Object.entries(response.headers))
    if (!NOT_ANSWERED.has(name)) answer.set(name, value);
  const upstreamBody = response.body;
  const stream =
    method === 'HEAD' || response.status === 204 || response.status === 304
      ? null
      : new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            const chunk = await upstreamBody.next();
            if (chunk === undefined) controller.close();
            else controller.enqueue(chunk);
          },
          cancel: () => upstreamBody.destroy(),
        });
  if (!stream) upstreamBody.destroy();
  return new Response(stream, { status: response.status, headers: answer });
};
