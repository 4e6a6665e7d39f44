import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Listening } from './listen.js';

/**
 * Verifies Spark's signed WebSocket URL the way iFlytek does, written apart from the adaptor's
 * signer: `authorization` (base64 of api_key, algorithm, headers, signature), `date` (within five
 * minutes) and `host` (the Host the handshake came to); the signature recomputed with the
 * APISecret over `host`, `date` and `GET <path> HTTP/1.1`. What is wrong, or undefined.
 */
export const verifySparkUrl = (
  url: string,
  hostHeader: string,
  secrets: { readonly apiKey: string; readonly apiSecret: string },
): string | undefined => {
  const parsed = new URL(url, 'ws://placeholder');
  const date = parsed.searchParams.get('date') ?? '';
  const host = parsed.searchParams.get('host') ?? '';
  const authorization = Buffer.from(parsed.searchParams.get('authorization') ?? '', 'base64').toString(
    'utf8',
  );
  const fields = Object.fromEntries(
    [...authorization.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]),
  );
  if (fields['api_key'] !== secrets.apiKey) return 'unknown api_key';
  if (fields['algorithm'] !== 'hmac-sha256' || fields['headers'] !== 'host date request-line')
    return 'bad authorization';
  if (host !== hostHeader) return 'host is not the Host';
  const when = Date.parse(date);
  if (Number.isNaN(when) || Math.abs(when - Date.now()) > 300_000) return 'stale date';
  const origin = `host: ${host}\ndate: ${date}\nGET ${parsed.pathname} HTTP/1.1`;
  const expected = createHmac('sha256', secrets.apiSecret).update(origin).digest('base64');
  return fields['signature'] === expected ? undefined : 'signature mismatch';
};

/** One server frame (never masked): FIN, the opcode, the length in 7, 16 or 64 bits. */
const frame = (opcode: number, payload: Buffer): Buffer => {
  const length = payload.length;
  const head =
    length < 126
      ? Buffer.from([0x80 | opcode, length])
      : length < 65_536
        ? Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([0x80 | opcode, 127]), Buffer.alloc(8)]);
  if (length >= 65_536) head.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([head, payload]);
};

/** Reads the client's (masked) frames as they come: each complete frame's opcode and unmasked payload. */
const frameReader = (onFrame: (opcode: number, payload: Buffer) => void) => {
  let pending = Buffer.alloc(0);
  return (chunk: Buffer): void => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (pending.length < 2) return;
      const opcode = (pending[0] ?? 0) & 0x0f;
      let length = (pending[1] ?? 0) & 0x7f;
      let at = 2;
      if (length === 126) {
        if (pending.length < 4) return;
        length = pending.readUInt16BE(2);
        at = 4;
      } else if (length === 127) {
        if (pending.length < 10) return;
        length = Number(pending.readBigUInt64BE(2));
        at = 10;
      }
      if (pending.length < at + 4 + length) return;
      const mask = pending.subarray(at, at + 4);
      const payload = Buffer.from(pending.subarray(at + 4, at + 4 + length));
      for (let index = 0; index < payload.length; index += 1)
        payload[index] = (payload[index] ?? 0) ^ (mask[index % 4] ?? 0);
      pending = pending.subarray(at + 4 + length);
      onFrame(opcode, payload);
    }
  };
};

export interface SparkRequest {
  readonly url: string;
  readonly frame: Record<string, unknown>;
}

export interface SparkDouble extends Listening {
  readonly requests: SparkRequest[];
  readonly appId: string;
  readonly apiSecret: string;
  readonly apiKey: string;
  /** The channel key, APPID|APISecret|APIKey. */
  readonly key: string;
  /** Answer the next request with Spark's error frame (header.code, message). */
  failNext(code: number, message: string): void;
  reply: string;
  usage: { prompt_tokens: number; completion_tokens: number };
}

const sleep = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A loopback double of iFlytek Spark's WebSocket API on node:http's upgrade (a minimal RFC 6455
 * server: the handshake, masked client frames read, text frames written): the signed URL checked
 * (a bad one is refused at the handshake with 401, as iFlytek does), the request frame read, the
 * answer sent as frames with `header.status` 0, 1 … 2, the usage in the last, then a close.
 */
export const startSparkDouble = async (): Promise<SparkDouble> => {
  const appId = '5f8a2c1e';
  const apiSecret = 'MjlmNzkzNmZkMDQ2OTc4doubleSecret';
  const apiKey = 'doubleApiKey00000000000000000001';
  const requests: SparkRequest[] = [];
  const failures: { code: number; message: string }[] = [];
  const state = {
    reply: '你好！我是讯飞星火认知大模型，很高兴为你服务。',
    usage: { prompt_tokens: 5, completion_tokens: 18 },
  };
  const sockets = new Set<Socket>();

  const answer = async (socket: Socket, sid: string) => {
    const send = (body: unknown) => socket.write(frame(0x1, Buffer.from(JSON.stringify(body))));
    const failure = failures.shift();
    if (failure) send({ header: { code: failure.code, message: failure.message, sid, status: 2 } });
    else {
      const pieces = [...state.reply].reduce<string[]>((out, char, at) => {
        if (at % 5 === 0) out.push(char);
        else out[out.length - 1] += char;
        return out;
      }, []);
      for (const [seq, content] of pieces.entries()) {
        const status = seq === pieces.length - 1 ? 2 : seq === 0 ? 0 : 1;
        const usage =
          status === 2
            ? {
                usage: {
                  text: {
                    question_tokens: 4,
                    ...state.usage,
                    total_tokens: state.usage.prompt_tokens + state.usage.completion_tokens,
                  },
                },
              }
            : {};
        send({
          header: { code: 0, message: 'Success', sid, status },
          payload: { choices: { status, seq, text: [{ content, role: 'assistant', index: 0 }] }, ...usage },
        });
        await sleep();
      }
    }
    socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
  };

  const server = createServer((_request, response) => {
    response.writeHead(426).end();
  });
  server.on('upgrade', (request: IncomingMessage, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const wrong = verifySparkUrl(request.url ?? '', request.headers.host ?? '', { apiKey, apiSecret });
    if (wrong) {
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\r\n{"message":"HMAC signature does not match"}`,
      );
      return;
    }
    const accept = createHash('sha1')
      .update(`${String(request.headers['sec-websocket-key'])}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.on(
      'data',
      frameReader((opcode, payload) => {
        if (opcode === 0x8) return void socket.end();
        if (opcode !== 0x1) return;
        const body = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
        requests.push({ url: request.url ?? '', frame: body });
        void answer(socket, `cht000${String(requests.length).padStart(4, '0')}@dx-double`);
      }),
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
    requests,
    appId,
    apiSecret,
    apiKey,
    key: `${appId}|${apiSecret}|${apiKey}`,
    failNext: (code, message) => {
      failures.push({ code, message });
    },
    get reply() {
      return state.reply;
    },
    set reply(value) {
      state.reply = value;
    },
    get usage() {
      return state.usage;
    },
    set usage(value) {
      state.usage = value;
    },
  };
};
