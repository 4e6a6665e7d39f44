import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { App } from './app.js';
import type { NodeHandler } from './relay/http/relay-http.js';

export type HttpListener = (request: IncomingMessage, response: ServerResponse) => void;

/** The whole HTTP surface for node:http: the relay's hot POST routes first, everything else through Hono. */
export const createHttpListener = (app: App, relay: NodeHandler): HttpListener => {
  const hono = getRequestListener(app.fetch);
  return (request, response) => {
    if (!relay(request, response)) void hono(request, response);
  };
};
