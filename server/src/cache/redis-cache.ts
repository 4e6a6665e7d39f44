import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RATE_LIMIT_IDLE_SECONDS, type Cache } from './cache.js';

/** The limiter as one atomic script, so that instances sharing a client's window never race. */
const ALLOW_SCRIPT = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local idle = tonumber(ARGV[4])
local length = redis.call('LLEN', KEYS[1])
if length >= limit then
  local oldest = tonumber(redis.call('LINDEX', KEYS[1], -1))
  if now - oldest < window then
    redis.call('EXPIRE', KEYS[1], idle)
    return 0
  end
end
redis.call('LPUSH', KEYS[1], now)
redis.call('LTRIM', KEYS[1], 0, limit - 1)
redis.call('EXPIRE', KEYS[1], idle)
return 1
`;

const PREFIX = 'sluice:';

/** A redis:// URL, or a Redis behind Sentinel (one-api's REDIS_MASTER_NAME with a sentinel list). */
export type RedisTarget =
  | string
  | {
      readonly sentinels: readonly { host: string; port: number }[];
      readonly masterName: string;
      readonly password: string;
    };

interface Envelope {
  from: string;
  message: string;
}

/**
 * Connects to Redis (refused at once when it cannot be reached). Once connected, a lost connection is
 * not an error of the process: ioredis reconnects by itself, commands fail meanwhile (the limiter
 * fails open, broadcasts are caught up on return), and `onError` hears of it.
 */
export const createRedisCache = async (
  target: RedisTarget,
  onError: (error: unknown) => void = () => undefined,
): Promise<Cache> => {
  const instanceId = randomUUID();
  const options = { lazyConnect: true, maxRetriesPerRequest: 2, connectTimeout: 5000 };
  // Named, so an operator (or a test) can tell Sluice's connections apart in CLIENT LIST.
  const connect = (connectionName: string) =>
    typeof target === 'string'
      ? new Redis(target, { ...options, connectionName })
      : new Redis({
          ...options,
          connectionName,
          sentinels: [...target.sentinels],
          name: target.masterName,
          ...(target.password ? { password: target.password } : {}),
        });
  const client = connect(`sluice-${instanceId}`);
  const subscriber = connect(`sluice-sub-${instanceId}`);
  // ioredis rejects connect() with "Connection is closed."; the cause comes as an error event.
  let connectError: unknown;
  const remember = (error: unknown) => {
    connectError ??= error;
  };
  client.on('error', remember);
  subscriber.on('error', remember);
  try {
    await client.connect();
    await subscriber.connect();
    await client.ping();
  } catch (error) {
    // Otherwise both clients keep reconnecting in the background after the caller gave up.
    client.disconnect();
    subscriber.disconnect();
    const reason = connectError ?? error;
    const text = reason instanceof Error ? reason.message : String(reason);
    throw new Error(`cannot reach Redis at REDIS_CONN_STRING: ${text}`, { cause: error });
  } finally {
    client.off('error', remember);
    subscriber.off('error', remember);
  }
  client.on('error', onError);
  subscriber.on('error', onError);
  const handlers = new Map<string, ((message: string) => void)[]>();
  // Scripts go by their SHA1 (EVALSHA); the whole text only when Redis does not know it yet.
  const shas = new Map<string, string>();
  const runScript = async (
    script: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> => {
    let sha = shas.get(script);
    if (sha === undefined) {
      sha = createHash('sha1').update(script).digest('hex');
      shas.set(script, sha);
    }
    try {
      return await client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(script, keys.length, ...keys, ...args);
    }
  };
  const resyncs: (() => void)[] = [];
  // ioredis reconnects and subscribes again by itself; what was published in between is lost.
  subscriber.on('ready', () => {
    // ioredis says ready before it subscribes again: subscribe first (again is harmless), so nothing
    // published after the caches are read again can be missed.
    const topics = [...handlers.keys()].map((topic) => PREFIX + topic);
    const subscribed = topics.length > 0 ? subscriber.subscribe(...topics) : Promise.resolve();
    subscribed.then(
      () => {
        for (const resync of resyncs) resync();
      },
      // Lost again: the next 'ready' tries once more.
      () => undefined,
    );
  });

  subscriber.on('message', (channel: string, raw: string) => {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(raw) as Envelope;
    } catch {
      return;
    }
    if (envelope.from === instanceId) return;
    for (const handler of handlers.get(channel.slice(PREFIX.length)) ?? []) handler(envelope.message);
  });

  return {
    kind: 'redis',
    publish: async (topic, message) => {
      await client.publish(PREFIX + topic, JSON.stringify({ from: instanceId, message } satisfies Envelope));
    },
    subscribe: async (topic, handler) => {
      const list = handlers.get(topic) ?? [];
      list.push(handler);
      handlers.set(topic, list);
      if (list.length === 1) await subscriber.subscribe(PREFIX + topic);
    },
    onResync: (handler) => {
      resyncs.push(handler);
    },
    allowRequest: async (key, limit, windowSeconds) => {
      const allowed = await client.eval(
        ALLOW_SCRIPT,
        1,
        `${PREFIX}rate:${key}`,
        Date.now(),
        limit,
        windowSeconds * 1000,
        Math.max(RATE_LIMIT_IDLE_SECONDS, windowSeconds),
      );
      return allowed === 1;
    },
    runScript,
    close: async () => {
      subscriber.disconnect();
      await client.quit();
    },
  };
};
