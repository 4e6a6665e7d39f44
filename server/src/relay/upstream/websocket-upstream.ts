import { WebSocket, type Dispatcher } from 'undici';
import type { UpstreamRequest } from '../providers/adaptor.js';
import { UpstreamBody } from './upstream-body.js';
import type { EventEmitter } from 'node:events';

// upstream.ts's types, said again here (it imports this file): a client signal, an answer, timeouts.
type ClientSignal = AbortSignal | (EventEmitter & { readonly aborted: boolean });
interface UpstreamResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: UpstreamBody;
}
interface UpstreamTimeouts {
  readonly connectMs: number;
  readonly firstByteMs: number;
  readonly idleMs: number;
}

/** A WebSocket upstream that did not open, answer or keep talking in time. */
export class WebSocketTimeoutError extends Error {
  readonly code: string;
  constructor(step: 'connect' | 'first message' | 'silence') {
    super(`the upstream WebSocket timed out (${step})`);
    this.name = 'WebSocketTimeoutError';
    this.code = step === 'connect' ? 'UND_ERR_CONNECT_TIMEOUT' : 'UND_ERR_BODY_TIMEOUT';
  }
}

const textOf = (data: unknown): string =>
  typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer).toString('utf8');

/**
 * A provider reached over a WebSocket (iFlytek Spark) as if it answered over HTTP: the socket is
 * opened on the request's ws(s):// URL (its auth is in the URL), the request's body is sent as the
 * first frame, and each message the provider sends becomes the answer's body: one SSE `data:` event
 * per message when the request accepts `text/event-stream`, else, once the provider closed, a JSON
 * array of every message. The timeouts are those of HTTP calls: connect (to the socket's opening),
 * first byte (to the first message), idle (between two messages).
 */
export const openWebSocket = (
  request: UpstreamRequest,
  signal: ClientSignal,
  timeouts: UpstreamTimeouts,
  dispatcher?: Dispatcher,
): Promise<UpstreamResponse> =>
  new Promise((resolve, reject) => {
    const events = (request.headers['accept'] ?? '').includes('text/event-stream');
    const socket = new WebSocket(request.url, dispatcher ? { dispatcher } : {});
    socket.binaryType = 'arraybuffer';
    const messages: string[] = [];
    let body: UpstreamBody | undefined;
    let timer: NodeJS.Timeout | undefined;
    let done = false;

    const finish = (error?: Error): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if ('removeEventListener' in signal) signal.removeEventListener('abort', onAbort);
      else signal.off('abort', onAbort);
      if (socket.readyState === WebSocket.CONNECTING || socket.readyState === WebSocket.OPEN) socket.close();
      if (!body) return reject(error ?? new Error('the upstream WebSocket closed before it opened'));
      if (error) return body.fail(error);
      if (!events) body.push(Buffer.from(`[${messages.join(',')}]`));
      body.end();
    };
    const arm = (ms: number, step: 'connect' | 'first message' | 'silence'): void => {
      clearTimeout(timer);
      timer = setTimeout(() => finish(new WebSocketTimeoutError(step)), ms);
    };
    const onAbort = (): void => finish(new Error('the client closed the request'));
    if (signal.aborted) return reject(new Error('the client closed the request'));
    if ('addEventListener' in signal) signal.addEventListener('abort', onAbort);
    else signal.on('abort', onAbort);
    arm(timeouts.connectMs, 'connect');

    socket.addEventListener('open', () => {
      socket.send(typeof request.body === 'string' ? request.body : Buffer.from(request.body));
      arm(timeouts.firstByteMs, 'first message');
      body = new UpstreamBody({ pause: () => undefined, resume: () => undefined, abort: () => finish() });
      resolve({
        status: 200,
        headers: { 'content-type': events ? 'text/event-stream' : 'application/json' },
        body,
      });
    });
    socket.addEventListener('message', (event) => {
      arm(timeouts.idleMs, 'silence');
      const text = textOf(event.data);
      if (events) body?.push(Buffer.from(`data: ${text.replace(/\r?\n/g, ' ')}\n\n`));
      else messages.push(text);
    });
    socket.addEventListener('error', () => finish(new Error('the upstream WebSocket failed')));
    socket.addEventListener('close', () => finish());
  });
