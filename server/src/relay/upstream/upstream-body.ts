/** What the body needs of undici's dispatch controller: flow control and cancellation. */
export interface BodyController {
  pause(): void;
  resume(): void;
  abort(reason: Error): void;
}

interface Waiter {
  /** Waits for the whole body (readAll) rather than the next bytes. */
  readonly all: boolean;
  readonly limit: number;
  readonly resolve: (chunk: Buffer | undefined) => void;
  readonly reject: (error: Error) => void;
}

/** Bytes kept unread before the upstream is paused (TCP then slows the sender down). */
const HIGH_WATER_BYTES = 64 * 1024;

/**
 * An upstream answer's body, fed straight from undici's dispatch callbacks: a queue of chunks with
 * flow control, read either chunk by chunk (streams) or whole. It replaces undici's Readable
 * response body, whose stream machinery (and async resource) cost more than everything the relay
 * does with the bytes.
 */
export class UpstreamBody {
  #chunks: Buffer[] = [];
  #size = 0;
  #state: 'open' | 'ended' | 'failed' = 'open';
  #failure: Error | undefined;
  #waiter: Waiter | undefined;
  #lastArrival = 0;
  readonly #controller: BodyController | undefined;

  /** Without a controller (tests), nothing can be paused or aborted upstream. */
  constructor(controller?: BodyController) {
    this.#controller = controller;
  }

  /** The body ended and every byte of it was read. */
  get ended(): boolean {
    return this.#state === 'ended' && this.#size === 0;
  }

  /** `performance.now()` when the upstream last sent something (a chunk, the end, a failure); 0 before. */
  get lastArrivalAt(): number {
    return this.#lastArrival;
  }

  /** The whole body at once when it has already ended (nothing read yet waits), else undefined. */
  whole(): Buffer | undefined {
    if (this.#state !== 'ended' || this.#waiter) return undefined;
    return this.#drain();
  }

  /** Producer: a chunk arrived. */
  push(chunk: Buffer): void {
    if (this.#state !== 'open') return;
    this.#lastArrival = performance.now();
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    const waiter = this.#waiter;
    if (waiter && !waiter.all) {
      this.#waiter = undefined;
      waiter.resolve(this.#drain());
    } else if (waiter && this.#size > waiter.limit) {
      this.#waiter = undefined;
      waiter.reject(this.#cancel(new Error('the upstream response is too large')));
    } else if (!waiter && this.#size > HIGH_WATER_BYTES) this.#controller?.pause();
  }

  /** Producer: the body is complete. */
  end(): void {
    if (this.#state !== 'open') return;
    this.#lastArrival = performance.now();
    this.#state = 'ended';
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter) waiter.resolve(waiter.all ? this.#drain() : undefined);
  }

  /** Producer: the body failed (connection lost, timeout, abort). */
  fail(error: Error): void {
    if (this.#state !== 'open') return;
    this.#state = 'failed';
    this.#failure = error;
    this.#chunks = [];
    this.#size = 0;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(error);
  }

  /** The bytes buffered so far, joined; waits when there are none; undefined once the body ended. */
  next(): Promise<Buffer | undefined> {
    if (this.#waiter) return Promise.reject(new Error('the upstream body is already being read'));
    if (this.#size > 0) return Promise.resolve(this.#drain());
    if (this.#state === 'ended') return Promise.resolve(undefined);
    if (this.#state === 'failed') return Promise.reject(this.#failure ?? new Error('the upstream failed'));
    return new Promise((resolve, reject) => {
      this.#waiter = { all: false, limit: Number.POSITIVE_INFINITY, resolve, reject };
    });
  }

  /** The whole body; refuses (and aborts the upstream) beyond `limit` bytes. */
  readAll(limit = 64 * 1024 * 1024): Promise<Buffer> {
    if (this.#waiter) return Promise.reject(new Error('the upstream body is already being read'));
    if (this.#size > limit)
      return Promise.reject(this.#cancel(new Error('the upstream response is too large')));
    if (this.#state === 'ended') return Promise.resolve(this.#drain());
    if (this.#state === 'failed') return Promise.reject(this.#failure ?? new Error('the upstream failed'));
    return new Promise((resolve, reject) => {
      this.#waiter = { all: true, limit, resolve: (chunk) => resolve(chunk ?? Buffer.alloc(0)), reject };
      this.#controller?.resume();
    });
  }

  /**
   * Stops reading: the upstream request is aborted and what was buffered is dropped; a read waiting
   * fails with `reason` (a timeout of the relay's own), or as cancelled.
   */
  destroy(reason?: Error): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    const error = this.#cancel(reason ?? new Error('the upstream response was cancelled'));
    waiter?.reject(error);
  }

  #cancel(error: Error): Error {
    const open = this.#state === 'open';
    this.fail(error);
    if (open) this.#controller?.abort(error);
    return this.#failure ?? error;
  }

  #drain(): Buffer {
    const chunks = this.#chunks;
    const joined = chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, this.#size);
    this.#chunks = [];
    this.#size = 0;
    if (this.#state === 'open') this.#controller?.resume();
    return joined;
  }
}
