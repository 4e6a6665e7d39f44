import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openWebSocket } from './websocket-upstream.js';

const TIMEOUTS = { connectMs: 300, firstByteMs: 300, idleMs: 300 };
const text = (payload: string): Buffer => {
  const bytes = Buffer.from(payload);
  return Buffer.concat([Buffer.from([0x81, 126, bytes.length >> 8, bytes.length & 0xff]), bytes]);
};

/** A WebSocket server that accepts and then does what `then` says with the socket. */
const serve = async (
  then: (socket: Socket) => void,
  accept = true,
): Promise<{ url: string; server: Server }> => {
  const server = createServer();
  server.on('upgrade', (request, socket: Socket) => {
    if (!accept) return;
    const key = createHash('sha1')
      .update(`${String(request.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${key}\r\n\r\n`,
    );
    then(socket);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  return { url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v1.1/chat`, server };
};

let open: Server | undefined;
afterEach(() => {
  open?.closeAllConnections();
  open?.close();
});

const read = async (body: { next(): Promise<Buffer | undefined> }): Promise<string> => {
  let out = '';
  for (let chunk = await body.next(); chunk; chunk = await body.next()) out += chunk.toString('utf8');
  return out;
};

describe('WebSocket upstream', () => {
  it('gives each message as an SSE data event, whatever the TCP writes cut, and ends at the close', async () => {
    const frames = Buffer.concat([text('{"n":"你好"}'), text('{"n":2}'), Buffer.from([0x88, 2, 0x03, 0xe8])]);
    const target = await serve((socket) => {
      socket.once('data', () => {
        let at = 0;
        const step = () => {
          if (at >= frames.length) return socket.end();
          socket.write(frames.subarray(at, at + 3));
          at += 3;
          setImmediate(step);
        };
        step();
      });
    });
    open = target.server;
    const response = await openWebSocket(
      { url: target.url, headers: { accept: 'text/event-stream' }, body: '{"hello":1}' },
      new AbortController().signal,
      TIMEOUTS,
    );
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(await read(response.body)).toBe('data: {"n":"你好"}\n\ndata: {"n":2}\n\n');
  });

  it('gathers the messages into one JSON array for a request that is not a stream', async () => {
    const target = await serve((socket) =>
      socket.once('data', () =>
        socket.end(Buffer.concat([text('{"a":1}'), text('{"b":2}'), Buffer.from([0x88, 2, 0x03, 0xe8])])),
      ),
    );
    open = target.server;
    const response = await openWebSocket(
      { url: target.url, headers: {}, body: '{}' },
      new AbortController().signal,
      TIMEOUTS,
    );
    expect(JSON.parse((await response.body.readAll()).toString('utf8'))).toEqual([{ a: 1 }, { b: 2 }]);
  });

  it('fails a socket cut without a close frame', async () => {
    const target = await serve((socket) => socket.once('data', () => socket.end(text('{"a":1}'))));
    open = target.server;
    const response = await openWebSocket(
      { url: target.url, headers: {}, body: '{}' },
      new AbortController().signal,
      TIMEOUTS,
    );
    await expect(response.body.readAll()).rejects.toThrow(/failed/);
  });

  it('times out at the connection, the first message and a silence, as RELAY_TIMEOUT says', async () => {
    const silent = await serve(() => undefined, false);
    await expect(
      openWebSocket({ url: silent.url, headers: {}, body: '{}' }, new AbortController().signal, TIMEOUTS),
    ).rejects.toThrow(/connect/);
    silent.server.closeAllConnections();
    silent.server.close();
    const mute = await serve(() => undefined);
    const first = await openWebSocket(
      { url: mute.url, headers: {}, body: '{}' },
      new AbortController().signal,
      TIMEOUTS,
    );
    await expect(first.body.readAll()).rejects.toThrow(/first message/);
    mute.server.closeAllConnections();
    mute.server.close();
    const pause = await serve((socket) => socket.once('data', () => socket.write(text('{"a":1}'))));
    open = pause.server;
    const idle = await openWebSocket(
      { url: pause.url, headers: { accept: 'text/event-stream' }, body: '{}' },
      new AbortController().signal,
      TIMEOUTS,
    );
    expect((await idle.body.next())?.toString('utf8')).toBe('data: {"a":1}\n\n');
    await expect(idle.body.next()).rejects.toThrow(/silence/);
  });
});
