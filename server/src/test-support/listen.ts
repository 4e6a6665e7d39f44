import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpListener } from '../http-listener.js';

export interface Listening {
  readonly url: string;
  close(): Promise<void>;
}

/** Serves Sluice's listener on a random loopback port, as main.ts does on its configured port. */
export const listenSluice = async (sluice: { readonly listener: HttpListener }): Promise<Listening> => {
  const server = createServer(sluice.listener);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};

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

/** One request through Sluice's real listener on a short-lived loopback server (for instances a test built itself). */
export const fetchThrough = async (
  sluice: { readonly listener: HttpListener },
  path: string,
  init: RequestInit,
): Promise<Response> => {
  const server = await listenSluice(sluice);
  try {
    const response = await fetch(server.url + path, init);
    await response.arrayBuffer();
    return response;
  } finally {
    await server.close();
  }
};
