import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpListener } from '../http-listener.js';
import type { Listening } from './listen.js';

/** One request as it reached Sluice's door: what the client sent before any body, and when. */
export interface DoorRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** ms since the listener started. */
  readonly at: number;
  /** The body as the parser handed it over (complete once Sluice has read it). */
  readonly body: Buffer[];
  /** The status Sluice answered, once it did. */
  status?: number;
}

export interface RecordingSluice extends Listening {
  readonly requests: DoorRequest[];
}

/**
 * Sluice's real listener on a loopback port, as listenSluice serves it, noting each request's
 * method, URL, headers, body and answer status on the way in and out, leaving the request as Sluice
 * reads it; an upgrade request reaches Sluice as the plain
 * GET Node hands to a server without an `upgrade` listener, as in main.ts.
 */
export const listenRecordingSluice = async (sluice: {
  readonly listener: HttpListener;
}): Promise<RecordingSluice> => {
  const requests: DoorRequest[] = [];
  const started = performance.now();
  const server = createServer((request, response) => {
    const entry: DoorRequest = {
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      at: Math.round(performance.now() - started),
      body: [],
    };
    requests.push(entry);
    // The parser hands the body over through push() after this handler ran: note each piece on the
    // way, leaving the stream as Sluice reads it (read() or 'data') untouched.
    const push = request.push.bind(request);
    request.push = (chunk: unknown, encoding?: BufferEncoding) => {
      if (Buffer.isBuffer(chunk)) entry.body.push(chunk);
      return push(chunk, encoding);
    };
    response.once('finish', () => {
      entry.status = response.statusCode;
    });
    sluice.listener(request, response);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
