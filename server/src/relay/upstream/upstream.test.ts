import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ClientLink } from '../http/client-link.js';
import { createUpstream, type Upstream } from './upstream.js';

type Handler = (request: IncomingMessage, body: Buffer, response: ServerResponse) => void;

/** A loopback HTTP server whose answer each test sets; it records what it received. */
let handler: Handler = (_request, _body, response) => response.end();
const seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string }[] = [];
const closed: string[] = [];
let server: Server;
let origin = '';
let upstream: Upstream;
let slow: Upstream;

beforeAll(async () => {
  server = createServer((request, response) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => {
      const body = Buffer.concat(parts);
      seen.push({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: body.toString(),
      });
      response.once('close', () =>
        closed.push(`${request.url ?? ''} ${response.writableFinished ? 'finished' : 'cut'}`),
      );
      handler(request, body, response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream = createUpstream(0);
  slow = createUpstream(1);
});

afterEach(() => {
  seen.length = 0;
  closed.length = 0;
});

afterAll(async () => {
  await upstream.close();
  await slow.close();
  server.closeAllConnections();
  server.close();
});

const until = async (check: () => boolean) => {
  for (let tries = 0; tries < 200 && !check(); tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return check();
};

describe('createUpstream().send', () => {
  it('sends the method, path, query, headers and body, and answers status, first header values and body', async () => {
    handler = (_request, body, response) => {
      response.setHeader('set-cookie', ['a=1', 'b=2']);
      response.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      response.end(JSON.stringify({ echoed: body.toString() }));
    };
    const answer = await upstream.send(
      {
        url: `${origin}/v1/chat/completions?api-version=2024-03-01-preview`,
        headers: { authorization: 'Bearer sk-upstream', 'content-type': 'application/json' },
        body: '{"model":"gpt-4o"}',
      },
      new ClientLink(),
    );
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions?api-version=2024-03-01-preview',
      body: '{"model":"gpt-4o"}',
    });
    expect(seen[0]?.headers?.authorization).toBe('Bearer sk-upstream');
    expect(answer.status).toBe(201);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.headers['x-upstream']).toBe('yes');
    expect(answer.headers['set-cookie']).toBe('a=1');
    expect(JSON.parse((await answer.body.readAll()).toString())).toEqual({ echoed: '{"model":"gpt-4o"}' });
  });

  it('skips informational answers (103 Early Hints) and answers the final status', async () => {
    handler = (_request, _body, response) => {
      response.writeEarlyHints({ link: '</style.css>; rel=preload' });
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end('final');
    };
    const answer = await upstream.send({ url: `${origin}/hints`, headers: {}, body: '' }, new ClientLink());
    expect(answer.status).toBe(200);
    expect((await answer.body.readAll()).toString()).toBe('final');
  });

  it('delivers a large streamed body whole and in order to a slow reader (flow control)', async () => {
    const piece = Buffer.alloc(16 * 1024);
    const sent = createHash('sha256');
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      let index = 0;
      const write = () => {
        while (index < 128) {
          piece.fill(index % 251);
          sent.update(piece);
          index += 1;
          if (!response.write(piece)) return void response.once('drain', write);
        }
        response.end();
      };
      write();
    };
    const answer = await upstream.send({ url: `${origin}/big`, headers: {}, body: '' }, new ClientLink());
    const received = createHash('sha256');
    let total = 0;
    for (let chunk = await answer.body.next(); chunk !== undefined; chunk = await answer.body.next()) {
      received.update(chunk);
      total += chunk.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(total).toBe(128 * 16 * 1024);
    expect(received.digest('hex')).toBe(sent.digest('hex'));
  });

  it('aborts the call when the client leaves before the upstream answers', async () => {
    handler = () => undefined; // never answers
    const client = new ClientLink();
    const call = upstream.send({ url: `${origin}/hang`, headers: {}, body: 'x' }, client);
    expect(await until(() => seen.length === 1)).toBe(true);
    client.abort();
    await expect(call).rejects.toThrow();
    expect(await until(() => closed.includes('/hang cut'))).toBe(true);
  });

  it('does not call at all for a client that already left', async () => {
    const client = new ClientLink();
    client.abort();
    await expect(upstream.send({ url: `${origin}/gone`, headers: {}, body: 'x' }, client)).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen.filter((request) => request.url === '/gone')).toEqual([]);
  });

  it('ends the upstream stream when the client leaves in the middle of it', async () => {
    handler = (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":1}\n\n');
    };
    const client = new ClientLink();
    const answer = await upstream.send({ url: `${origin}/stream`, headers: {}, body: '' }, client);
    expect((await answer.body.next())?.toString()).toBe('data: {"n":1}\n\n');
    const waiting = answer.body.next();
    client.abort();
    await expect(waiting).rejects.toThrow();
    expect(await until(() => closed.includes('/stream cut'))).toBe(true);
  });

  it('fails with a timeout error when the upstream sends no headers in time', async () => {
    handler = () => undefined;
    const call = slow.send({ url: `${origin}/silent`, headers: {}, body: '' }, new ClientLink());
    const error = await call.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name + (error as Error).message).toMatch(/timeout/i);
  });

  it('fails to connect to a closed port with an error', async () => {
    const port = (server.address() as AddressInfo).port;
    const closedPort = port === 1 ? 2 : 1;
    await expect(
      upstream.send({ url: `http://127.0.0.1:${closedPort}/v1`, headers: {}, body: '' }, new ClientLink()),
    ).rejects.toThrow();
  });
});

describe('createUpstream().get', () => {
  it('answers the status and the JSON body, or undefined when the body is not JSON', async () => {
    handler = (request, _body, response) => {
      response.writeHead(request.url === '/json' ? 200 : 503, { 'content-type': 'application/json' });
      response.end(request.url === '/json' ? '{"balance":12.5}' : 'down');
    };
    expect(await upstream.get(`${origin}/json`, {}, AbortSignal.timeout(5000))).toEqual({
      status: 200,
      json: { balance: 12.5 },
    });
    expect(seen[0]?.method).toBe('GET');
    expect(await upstream.get(`${origin}/text`, {}, AbortSignal.timeout(5000))).toEqual({
      status: 503,
      json: undefined,
    });
  });
});
