import type { ScriptRunner } from '../limits/redis-limit-store.js';

/** Where a conversation is pinned: its channel, and its key when the channel has several. */
export interface Pin {
  readonly channelId: number;
  readonly keyId?: string | undefined;
}

export interface AffinityStore {
  /** The conversation's pin, its TTL refreshed; a promise only when it is asked of Redis. */
  lookup(conversation: string, ttlMs: number): Pin | undefined | Promise<Pin | undefined>;
  /** Pins the conversation (again: its TTL starts over). */
  remember(conversation: string, pin: Pin, ttlMs: number): void;
  /** Drops the pin (its channel failed and none answered). */
  forget(conversation: string): void;
}

/** Pins kept in memory at most (the oldest go first). */
export const MAX_MEMORY_PINS = 100_000;
/** How long a request waits for Redis's answer before it goes on with what this instance knows. */
export const REDIS_WAIT_MS = 100;

const PREFIX = 'sluice:affinity:';
// The pin, its TTL refreshed on use (one round trip).
const LOOKUP_SCRIPT =
  "local pin = redis.call('GET', KEYS[1]); if pin then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end; return pin";
const REMEMBER_SCRIPT = "return redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])";
const FORGET_SCRIPT = "return redis.call('DEL', KEYS[1])";

interface Kept {
  readonly pin: Pin;
  expiresAt: number;
}

const encode = (pin: Pin): string => `${pin.channelId} ${pin.keyId ?? ''}`;

const decode = (value: unknown): Pin | undefined => {
  if (typeof value !== 'string') return undefined;
  const [channel, keyId] = value.split(' ');
  const channelId = Number(channel);
  if (!Number.isSafeInteger(channelId) || channelId <= 0) return undefined;
  return { channelId, keyId: keyId ? keyId : undefined };
};

/**
 * Conversation pins: in this instance's memory (bounded, oldest first out), and with `run` (the
 * shared Redis) in Redis too, so every instance sends a conversation to the same channel. Redis
 * away or slow (past REDIS_WAIT_MS): the instance goes on with its memory, never failing a request.
 */
export const createAffinityStore = (deps: {
  readonly run?: ScriptRunner | undefined;
  readonly warn?: (error: unknown) => void;
  readonly now?: () => number;
}): AffinityStore => {
  const now = deps.now ?? Date.now;
  // Redis away is told at most once a minute (each request would tell it again).
  let warnedAt = -Infinity;
  const warn = (error: unknown) => {
    if (performance.now() - warnedAt < 60_000) return;
    warnedAt = performance.now();
    deps.warn?.(error);
  };
  const kept = new Map<string, Kept>();

  const keep = (conversation: string, pin: Pin, ttlMs: number) => {
    kept.delete(conversation);
    if (kept.size >= MAX_MEMORY_PINS) {
      const oldest = kept.keys().next();
      if (!oldest.done) kept.delete(oldest.value);
    }
    kept.set(conversation, { pin, expiresAt: now() + ttlMs });
  };

  const fromMemory = (conversation: string, ttlMs: number): Pin | undefined => {
    const entry = kept.get(conversation);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      kept.delete(conversation);
      return undefined;
    }
    // Refreshed on use, and moved to the young end.
    kept.delete(conversation);
    entry.expiresAt = now() + ttlMs;
    kept.set(conversation, entry);
    return entry.pin;
  };

  const run = deps.run;
  const fromRedis = async (conversation: string, ttlMs: number): Promise<Pin | undefined> => {
    if (!run) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), REDIS_WAIT_MS);
    });
    try {
      const answer = await Promise.race([run(LOOKUP_SCRIPT, [PREFIX + conversation], [ttlMs]), late]);
      if (answer === 'late') return fromMemory(conversation, ttlMs);
      const pin = decode(answer);
      if (pin) keep(conversation, pin, ttlMs);
      else kept.delete(conversation);
      return pin;
    } catch (error) {
      warn(error);
      return fromMemory(conversation, ttlMs);
    } finally {
      clearTimeout(timer);
    }
  };

  const send = (script: string, conversation: string, args: readonly (string | number)[]) => {
    run?.(script, [PREFIX + conversation], args).catch(warn);
  };

  return {
    lookup: (conversation, ttlMs) => (run ? fromRedis(conversation, ttlMs) : fromMemory(conversation, ttlMs)),
    remember: (conversation, pin, ttlMs) => {
      keep(conversation, pin, ttlMs);
      send(REMEMBER_SCRIPT, conversation, [encode(pin), ttlMs]);
    },
    forget: (conversation) => {
      kept.delete(conversation);
      send(FORGET_SCRIPT, conversation, []);
    },
  };
};
