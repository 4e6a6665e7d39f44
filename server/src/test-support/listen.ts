import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { App } from '../app.js';

export interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves an app on a random loopback port, as main.ts does on its configured port. */
export const listenApp = async (app: App): Promise<Listening> =>
  new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        close: () =>
          new Promise<void>((done) => {
            (server as Server).closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });

export type Handler = (
  request: IncomingMessage,
  body: Buffer,
  response: ServerResponse,
) => void | Promise<void>;

/** A plain node:http server on a random loopback port (for upstream doubles). */
export const listenHandler = async (handler: Handler): Promise<Listening & { server: Server }> => {
  const server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (chunk: Buffer) => parts.push(chunk));
    request.on('end', () => {
      Promise.resolve(handler(request, Buffer.concat(parts), response)).catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
