import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ALERT_SIGNATURE_HEADER, ALERT_TIMESTAMP_HEADER } from '@sluice/contract/schemas/alerts';
import { verifyAlert } from '../services/alert-signature.js';
import { nowSeconds } from '../lib/time.js';

/** One request the receiver took, with whether its signature checked out against the secret. */
export interface ReceivedHook {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: { event: string; at: number; data: Record<string, unknown> };
  readonly verified: boolean;
}

export interface WebhookReceiver {
  readonly url: string;
  readonly received: ReceivedHook[];
  /** The HTTP status it answers (200 unless a test sets another). */
  status: number;
  /** Milliseconds it waits before answering (0 unless a test sets more). */
  delayMs: number;
  close(): Promise<void>;
}

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
};

/** A loopback webhook receiver that checks each delivery's signature as docs/alerts.md tells a receiver to. */
export const startWebhookReceiver = async (secret: string): Promise<WebhookReceiver> => {
  const received: ReceivedHook[] = [];
  const state = { status: 200, delayMs: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const verified = verifyAlert(
        secret,
        header(request.headers, ALERT_TIMESTAMP_HEADER),
        raw,
        header(request.headers, ALERT_SIGNATURE_HEADER),
        nowSeconds(),
      );
      let body: ReceivedHook['body'] = { event: '', at: 0, data: {} };
      try {
        body = JSON.parse(raw) as ReceivedHook['body'];
      } catch {
        // kept as received; the test sees an empty event
      }
      received.push({ path: request.url ?? '', headers: request.headers, raw, body, verified });
      setTimeout(() => {
        response.writeHead(verified ? state.status : 401, { 'content-type': 'text/plain' });
        response.end(verified ? 'ok' : 'bad signature');
      }, state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    get status() {
      return state.status;
    },
    set status(value: number) {
      state.status = value;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
