import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from '../../http/metrics.js';
import { pickClientIp } from '../../http/client-ip.js';
import { relayError } from '../../lib/app-error.js';
import { createRequestId } from '../../lib/time.js';
import type { RefusalLogCap } from './refusal-log-cap.js';
import { ClientLink } from './client-link.js';
import { RateLimitRefusal } from '../limits/rate-limit-refusal.js';
import { BudgetRefusal } from '../metering/budget-refusal.js';
import { authenticateKey } from '../request/key-auth.js';
import { dispatchRelay, type RelayRouteDeps } from '../request/relay-dispatch.js';
import type { RelayRoute } from '../request/relay-request.js';
import { clientErrorOf } from './client-error.js';
import { inflate, readBody, tooLarge } from './request-body.js';
import { credentialOf, isRelayPrefix, matchRoute } from './route-match.js';
import { overheadMs, type ChunkSource, type RelayReply } from '../pipeline/relay-response.js';

export interface RelayHttpDeps {
  readonly relay: RelayRouteDeps;
  readonly metrics: Metrics;
  readonly logger: Logger;
  /** Caps the access lines of refusals (4xx); boot tells what it counted at shutdown. */
  readonly refusals: RefusalLogCap;
}

/** Serves the request and answers true when it is one of the relay's POST routes; false leaves it alone. */
export type NodeHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

const HEADERS_FOR_ADAPTORS = ['anthropic-version', 'anthropic-beta', 'x-session-id'] as const;
/**
 * Writes a stream to the client as it comes, waiting when the socket is full; stops when the client
 * left. The status line and headers go out with the first chunk (as Node sends them anyway); a stream
 * that came whole goes out as one body with its length.
 */
const pump = async (
  response: ServerResponse,
  reply: RelayReply,
  source: ChunkSource,
  afterFirstChunk: () => void,
  client: RelayRoute['client'],
  durable: () => Promise<void> | undefined,
): Promise<void> => {
  let first = true;
  const onClose = () => {
    if (!response.writableFinished) source.cancel();
  };
  response.once('close', onClose);
  for (;;) {
    let chunk;
    try {
      chunk = await source.next();
    } catch {
      response.off('close', onClose);
      // The upstream broke off. Before any byte: an error the client can read. After: the connection
      // is cut, so a truncated body never looks whole.
      if (first && !response.headersSent) {
        const requestId = String(reply.headers['x-oneapi-request-id'] ?? '');
        const failed = clientErrorOf(
          relayError(502, 'bad_response', 'the upstream broke off before its answer'),
          requestId,
          client,
        );
        const text = JSON.stringify(failed.body);
        response.writeHead(502, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          'x-oneapi-request-id': requestId,
          'x-sluice-request-id': requestId,
          'access-control-allow-origin': '*',
        });
        response.end(text);
      } else response.destroy();
      return;
    }
    if (chunk === undefined) break;
    if (response.destroyed) {
      // Gone before its 'close' was heard: end the upstream and bill what was generated now.
      source.cancel();
      break;
    }
    if (first) {
      if (source.done) reply.headers['content-length'] = chunk.byteLength;
      response.writeHead(reply.status, reply.headers);
    }
    if (source.done) {
      // The stream is settled: its last bytes wait until the settlement is in the billing journal.
      const journaled = durable();
      if (journaled) await journaled;
      // The last chunk goes out with the end of the response: one write instead of two.
      response.off('close', onClose);
      response.end(chunk);
      if (first) afterFirstChunk();
      return;
    }
    const flowing = response.write(chunk);
    if (first) {
      first = false;
      afterFirstChunk();
    }
    if (!flowing)
      await new Promise<void>((resume) => {
        const done = () => {
          response.off('drain', done);
          response.off('close', done);
          resume();
        };
        response.once('drain', done);
        response.once('close', done);
      });
  }
  response.off('close', onClose);
  if (!response.destroyed) {
    if (first) response.writeHead(reply.status, reply.headers);
    response.end();
  }
  if (first) afterFirstChunk();
};

/**
 * The relay's POST routes on the Node request and response themselves: the hot path skips the web
 * `Request`/`Response` objects and the middleware chain the other surfaces use. Everything Hono's
 * middleware gives the other routes is done here too: the request id, CORS, the body limit, metrics,
 * the access log line and the one translation of errors into OpenAI's shape.
 */
export const createRelayHttp = (deps: RelayHttpDeps): NodeHandler => {
  const { relay, metrics, logger, refusals } = deps;
  const limit = relay.config.maxRequestBodyBytes;

  const serve = async (
    request: IncomingMessage,
    route: RelayRoute,
    pathModel: string | undefined,
    requestId: string,
    clientSignal: ClientLink,
  ): Promise<RelayReply> => {
    const headers = request.headers;
    if (Number(headers['content-length'] ?? 0) > limit) throw tooLarge(limit);
    const clientIp = pickClientIp(
      typeof headers['x-forwarded-for'] === 'string' ? headers['x-forwarded-for'] : undefined,
      request.socket.remoteAddress,
      relay.config.trustProxy,
    );
    const authenticated = authenticateKey(relay, credentialOf(headers, request.url ?? '', route), clientIp);
    const auth = authenticated instanceof Promise ? await authenticated : authenticated;
    // This runs as the headers are parsed, before the parser has handed over the body that usually
    // came with them: once the parser is through (setImmediate), it is read at once.
    if (!request.complete) await new Promise<void>((resolve) => setImmediate(resolve));
    const body = readBody(request, limit);
    const raw = inflate(request, body instanceof Promise ? await body : body, limit);
    const clientHeaders: Record<string, string> = {};
    for (const name of HEADERS_FOR_ADAPTORS) {
      const value = headers[name];
      if (typeof value === 'string' && value !== '') clientHeaders[name] = value;
    }
    return dispatchRelay(relay, {
      route,
      auth,
      raw,
      contentType: headers['content-type'] ?? '',
      pathModel,
      requestId,
      clientSignal,
      clientHeaders,
    });
  };

  /** Answers the request; what the answer held (a slot in a concurrency limit) is freed however it ends. */
  const answer = async (
    request: IncomingMessage,
    response: ServerResponse,
    route: RelayRoute,
    pathModel?: string,
  ) => {
    let onEnd: (() => void) | undefined;
    try {
      await answerWith(request, response, route, pathModel, (end) => (onEnd = end));
    } finally {
      onEnd?.();
    }
  };

  const answerWith = async (
    request: IncomingMessage,
    response: ServerResponse,
    route: RelayRoute,
    pathModel: string | undefined,
    held: (end: (() => void) | undefined) => void,
  ) => {
    const started = performance.now();
    const requestId = createRequestId();
    const client = new ClientLink();
    response.once('close', () => {
      if (!response.writableFinished) client.abort();
    });
    let reply: RelayReply;
    try {
      reply = await serve(request, route, pathModel, requestId, client);
      held(reply.onEnd);
    } catch (error) {
      const translated = clientErrorOf(error, requestId, route.client);
      if (translated.unexpected) logger.error({ err: error, requestId, path: route.path }, 'unhandled error');
      if (translated.unavailable)
        logger.warn({ err: error, requestId, path: route.path }, 'database unavailable');
      reply = {
        status: translated.status,
        headers: {
          'content-type': 'application/json',
          'x-oneapi-request-id': requestId,
          'x-sluice-request-id': requestId,
          // The unread rest of an oversized body makes the connection unusable: the client must reconnect.
          ...(translated.status === 413 ? { connection: 'close' } : {}),
          // A rate limit's refusal says when to come back: Retry-After and the x-ratelimit-* headers.
          ...(error instanceof RateLimitRefusal || error instanceof BudgetRefusal ? error.headers : {}),
        },
        body: JSON.stringify(translated.body),
      };
    }
    const { status, body, headers } = reply;
    headers['access-control-allow-origin'] = '*';
    // A whole answer goes out once its settlement is in the billing journal (kill -9 loses no bill).
    if (typeof body === 'string' || body instanceof Uint8Array) {
      const journaled = relay.billing.durable();
      if (journaled) await journaled;
    }
    if (response.destroyed) {
      if (typeof body === 'object' && !(body instanceof Uint8Array)) body.cancel();
    } else if (typeof body === 'string' || body instanceof Uint8Array) {
      headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
      response.writeHead(status, headers);
      response.end(body);
    }
    // Counted once the answer (or a stream's first chunk) is out: nothing on the way to the client.
    const account = () => {
      const elapsed = performance.now() - started;
      metrics.observe('relay', 'POST', route.path, status, elapsed / 1000);
      const own = overheadMs(reply, elapsed);
      if (own !== undefined) metrics.relayOverhead(route.path, own / 1000);
      // Every relayed answer already has its consumption log row: the access line of a success is for
      // debugging only (at info it costs the hot path more than the rest of its bookkeeping).
      // A refusal's line is capped (a flood of bad keys would write one per request); 5xx never is.
      const logged = status >= 400 && (status >= 500 || refusals.admit(status));
      if (logged || (status < 400 && logger.isLevelEnabled('debug')))
        logger[status >= 400 ? 'info' : 'debug'](
          { requestId, method: 'POST', path: route.path, status, ms: Math.round(elapsed) },
          'request',
        );
    };
    if (typeof body === 'object' && !(body instanceof Uint8Array) && !response.destroyed)
      await pump(response, reply, body, account, route.client, relay.billing.durable);
    else account();
  };

  return (request, response) => {
    if (request.method !== 'POST' || !request.url || !isRelayPrefix(request.url)) return false;
    const matched = matchRoute(request.url);
    if (!matched) return false;
    answer(request, response, matched.route, matched.pathModel).catch((error: unknown) => {
      logger.error({ err: error, path: matched.route.path }, 'relay answer failed');
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
    return true;
  };
};
