/**
 * The reference relay: a bare node:http server that reads the client's POST body, forwards it to the
 * upstream with an undici Agent (keep-alive) and pipes the answer back, nothing else (no auth, no
 * parsing, no billing, no logging). "Sluice CPU per request ≤ 2× this" is the target.
 * Usage: node bench/bare-relay.mjs <upstream origin>; reports its port as its first IPC message.
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import process from 'node:process';
import { pipeline } from 'node:stream';
import { Agent, request } from 'undici';

const upstream = process.argv[2];
if (!upstream) throw new Error('usage: bare-relay.mjs <upstream origin>');

const agent = new Agent({ keepAliveTimeout: 30_000, connections: 512 });

const server = createServer({ keepAliveTimeout: 65_000 }, (incoming, outgoing) => {
  /** @type {Buffer[]} */
  const parts = [];
  incoming.on('data', (/** @type {Buffer} */ part) => parts.push(part));
  incoming.on('end', () => {
    request(upstream + (incoming.url ?? '/'), {
      method: 'POST',
      headers: {
        'content-type': incoming.headers['content-type'] ?? 'application/json',
        authorization: 'Bearer sk-upstream',
      },
      body: Buffer.concat(parts),
      dispatcher: agent,
    }).then(
      (response) => {
        const type = response.headers['content-type'];
        outgoing.writeHead(response.statusCode, typeof type === 'string' ? { 'content-type': type } : {});
        pipeline(response.body, outgoing, () => undefined);
      },
      () => {
        outgoing.writeHead(502, { 'content-type': 'application/json' });
        outgoing.end('{"error":{"message":"upstream failed","type":"bad_gateway"}}');
      },
    );
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.send?.({ port });
});
process.on('SIGTERM', () => process.exit(0));
