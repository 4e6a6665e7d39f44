import type { UpstreamBody } from '../upstream/upstream-body.js';
import { parseJson } from '@sluice/contract/parse-json';

/** A chunk source the HTTP layer drains into the client, with backpressure; `cancel` when the client left. */
export interface ChunkSource {
  /** The next chunk; undefined when there are no more. */
  next(): Promise<Uint8Array | undefined>;
  /** True once the chunk `next` answered last was the final one (the response can end with it). */
  done: boolean;
  cancel(): void;
}

/**
 * An upstream body passed on as it comes (speech audio): the last chunk is known as such when the
 * body's end came with it. `onFinish` hears once whether the upstream delivered it all (a client
 * that left counts as delivered: the upstream did the work) or broke off, which makes `next` throw.
 */
export const bodySource = (body: UpstreamBody, onFinish: (delivered: boolean) => void): ChunkSource => {
  let finished = false;
  const finish = (delivered: boolean) => {
    if (finished) return;
    finished = true;
    onFinish(delivered);
  };
  const source: ChunkSource = {
    done: false,
    next: async () => {
      let chunk;
      try {
        chunk = await body.next();
      } catch (error) {
        finish(false);
        throw error;
      }
      source.done = chunk === undefined || body.ended;
      if (source.done) finish(true);
      return chunk;
    },
    cancel: () => {
      body.destroy();
      finish(true);
    },
  };
  return source;
};

/** An upstream body passed on: at once when it is already whole (`onFinish` told now), else as it comes. */
export const passedOn = (
  body: UpstreamBody,
  onFinish: (delivered: boolean) => void,
): Uint8Array | ChunkSource => {
  const whole = body.whole();
  if (!whole) return bodySource(body, onFinish);
  onFinish(true);
  return whole;
};

/**
 * A request's time on upstreams, for its overhead (http/overhead-metric.ts): the failed attempts'
 * milliseconds (each whole), and the answering attempt's request sent and its body, whose
 * `lastArrivalAt` says when the upstream last sent something. A body left unset (a polled task: its
 * pauses are not the upstream answering) observes no overhead.
 */
export interface UpstreamWait {
  failedMs: number;
  sentAt: number;
  body: UpstreamBody | undefined;
}

/** What the relay answers: written straight to the Node response (no web `Response` on the hot path). */
export interface RelayReply {
  readonly status: number;
  readonly headers: Record<string, string | number>;
  readonly body: Uint8Array | string | ChunkSource;
  /** Called once when the answer is over (sent whole, stream ended, client gone): frees what it held. */
  readonly onEnd?: (() => void) | undefined;
  /** The request's time on upstreams (set by the pipeline on an answered request). */
  upstreamWait?: UpstreamWait | undefined;
}

/** Sluice's own milliseconds in a reply `elapsedMs` after its request came; undefined when not measured. */
export const overheadMs = (reply: RelayReply, elapsedMs: number): number | undefined => {
  const wait = reply.upstreamWait;
  if (!wait?.body) return undefined;
  const upstreamMs = wait.failedMs + Math.max(0, wait.body.lastArrivalAt - wait.sentAt);
  return Math.max(0, elapsedMs - upstreamMs);
};

/** Every answer the relay builds carries the request id, under one-api's name and Sluice's (`headers` is the caller's own object). */
export const reply = (
  body: RelayReply['body'],
  status: number,
  requestId: string,
  headers: Record<string, string>,
): RelayReply => {
  headers['x-oneapi-request-id'] = requestId;
  headers['x-sluice-request-id'] = requestId;
  return { status, headers, body };
};

/** The body as JSON, or undefined when it is not JSON. */
export const safeJson = (raw: Buffer): unknown => parseJson(raw.toString('utf8'));
