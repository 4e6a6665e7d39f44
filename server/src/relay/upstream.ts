import type { EventEmitter } from 'node:events';
import { Agent, request, type Dispatcher } from 'undici';
import type { UpstreamRequest } from './adaptors/adaptor.js';

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Dispatcher.ResponseData['body'];
}

/** One keep-alive connection pool for every upstream call; timeouts from RELAY_TIMEOUT (0 = none). */
export const createUpstream = (timeoutSeconds: number) => {
  const timeout = timeoutSeconds * 1000;
  const agent = new Agent({
    keepAliveTimeout: 30_000,
    connections: 512,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connect: { timeout: timeout > 0 ? Math.min(timeout, 30_000) : 30_000 },
  });

  // Origin and path of each upstream URL, parsed once (undici's request() parses the URL each call).
  const targets = new Map<string, { readonly origin: string; readonly path: string }>();
  const targetOf = (url: string) => {
    let target = targets.get(url);
    if (!target) {
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
      if (targets.size >= 1000) targets.clear();
      targets.set(url, target);
    }
    return target;
  };

  const send = async (
    upstream: UpstreamRequest,
    signal: AbortSignal | EventEmitter,
  ): Promise<UpstreamResponse> => {
    const { origin, path } = targetOf(upstream.url);
    const response = await agent.request({
      origin,
      path,
      method: 'POST',
      headers: upstream.headers,
      body: upstream.body,
      signal,
    });
    const headers: Record<string, string> = {};
    for (const name in response.headers) {
      const value = response.headers[name];
      if (typeof value === 'string') headers[name] = value;
      else if (Array.isArray(value) && value[0] !== undefined) headers[name] = value[0];
    }
    return { status: response.statusCode, headers, body: response.body };
  };

  /** A small JSON GET (balances): the status and the parsed body (undefined when not JSON). */
  const get = async (
    url: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<{ status: number; json: unknown }> => {
    const response = await request(url, { method: 'GET', headers, signal, dispatcher: agent });
    const text = (await readAll(response.body, 1024 * 1024)).toString('utf8');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.statusCode, json };
  };

  return { send, get, close: () => agent.close() };
};

export type Upstream = ReturnType<typeof createUpstream>;

/** Reads a whole upstream body, refusing more than `limit` bytes. */
export const readAll = (body: UpstreamResponse['body'], limit = 64 * 1024 * 1024): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        body.destroy();
        reject(new Error('the upstream response is too large'));
      } else parts.push(chunk);
    });
    let ended = false;
    body.once('end', () => {
      ended = true;
      resolve(parts.length === 1 && parts[0] ? parts[0] : Buffer.concat(parts, size));
    });
    body.once('error', reject);
    // Only an Error when it is one: building its stack on every normal close costs the hot path.
    body.once('close', () => {
      if (!ended) reject(new Error('the upstream response ended early'));
    });
  });

/**
 * The next chunk of an upstream body (what is buffered, joined), undefined at its end; rejects when
 * the body fails or is destroyed first. Lighter than an async iterator per streamed answer.
 */
export const nextChunk = (body: UpstreamResponse['body']): Promise<Buffer | undefined> => {
  const ready = body.read() as Buffer | null;
  if (ready !== null) return Promise.resolve(ready);
  if (body.readableEnded) return Promise.resolve(undefined);
  if (body.destroyed) return Promise.reject(new Error('the upstream response ended early'));
  return new Promise((resolve, reject) => {
    const stop = () => {
      body.off('readable', onReadable);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onReadable = () => {
      const chunk = body.read() as Buffer | null;
      if (chunk === null) return;
      stop();
      resolve(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(undefined);
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => {
      stop();
      if (body.readableEnded) resolve(undefined);
      else reject(new Error('the upstream response ended early'));
    };
    body.on('readable', onReadable);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
};
