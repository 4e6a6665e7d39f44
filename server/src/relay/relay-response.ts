/** A chunk source the HTTP layer drains into the client, with backpressure; `cancel` when the client left. */
export interface ChunkSource {
  /** The next chunk; undefined when there are no more. */
  next(): Promise<Uint8Array | undefined>;
  /** True once the chunk `next` answered last was the final one (the response can end with it). */
  done: boolean;
  cancel(): void;
}

/** What the relay answers: written straight to the Node response (no web `Response` on the hot path). */
export interface RelayReply {
  readonly status: number;
  readonly headers: Record<string, string | number>;
  readonly body: Uint8Array | string | ChunkSource;
}

/** Every answer the relay builds carries the request id (`headers` is the caller's own object). */
export const reply = (
  body: RelayReply['body'],
  status: number,
  requestId: string,
  headers: Record<string, string>,
): RelayReply => {
  headers['x-oneapi-request-id'] = requestId;
  return { status, headers, body };
};

/** The body as JSON, or undefined when it is not JSON. */
export const safeJson = (raw: Buffer): unknown => {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
};
