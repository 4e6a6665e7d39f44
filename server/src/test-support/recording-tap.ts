import type { IncomingHttpHeaders } from 'node:http';
import { listenHandler, type Listening } from './listen.js';

/** One request as it reached the tap: the full URL (query included), headers and raw body. */
export interface TappedRequest {
  readonly method: string;
  /** Path and query exactly as sent, e.g. `/openai/deployments/gpt-4o/chat/completions?api-version=…`. */
  readonly url: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface Tap extends Listening {
  readonly requests: TappedRequest[];
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/**
 * A recording loopback proxy in front of an upstream double: it keeps what the OpenAI double drops
 * (the query string) and forwards everything else unchanged, streaming the answer back.
 */
export const startTap = async (targetUrl: string): Promise<Tap> => {
  const requests: TappedRequest[] = [];
  const server = await listenHandler(async (request, body, response) => {
    const url = request.url ?? '/';
    const parsed = new URL(url, 'http://tap.invalid');
    requests.push({
      method: request.method ?? '',
      url,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: request.headers,
      body,
    });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (!HOP_BY_HOP.has(name) && typeof value === 'string') headers[name] = value;
    const answer = await fetch(`${targetUrl}${url}`, {
      method: request.method ?? 'POST',
      headers,
      ...(body.length > 0 ? { body } : {}),
    });
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out[name] = value;
    });
    response.writeHead(answer.status, out);
    if (answer.body) for await (const chunk of answer.body) response.write(chunk);
    response.end();
  });
  return { url: server.url, close: () => server.close(), requests };
};
