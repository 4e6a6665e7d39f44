/**
 * What must be shared between Sluice instances: invalidation messages and rate-limit windows.
 * The memory implementation serves one instance; the Redis one serves many.
 */
export interface Cache {
  readonly kind: 'memory' | 'redis';
  /** Sends a message to the other instances (never back to this one). */
  publish(topic: string, message: string): Promise<void>;
  /** Receives the messages the other instances publish on a topic. */
  subscribe(topic: string, handler: (message: string) => void): Promise<void>;
  /**
   * Called when messages may have been missed: the subscription came back after a break. Whatever
   * was kept because no message said otherwise must then be read again.
   */
  onResync(handler: () => void): void;
  /**
   * Sliding window of one-api's limiter: allow when fewer than `limit` hits are kept for `key`, or
   * when the oldest kept hit is at least `windowSeconds` old (it is dropped).
   */
  allowRequest(key: string, limit: number, windowSeconds: number): Promise<boolean>;
  /**
   * Runs a Lua script atomically on the shared Redis (the relay's rate limits, relay/limits/);
   * absent on the memory cache, whose instance keeps its windows itself.
   */
  readonly runScript?: (
    script: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ) => Promise<unknown>;
  close(): Promise<void>;
}

/** Keys of an idle client expire after this long (one-api: 20 minutes). */
export const RATE_LIMIT_IDLE_SECONDS = 20 * 60;
