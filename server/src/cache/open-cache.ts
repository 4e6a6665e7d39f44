import type { Logger } from 'pino';
import type { Config } from '../config/env.js';
import { sentinelsOf } from '../config/env-values.js';
import type { Cache } from './cache.js';
import { createMemoryCache } from './memory-cache.js';

/** How often at most a lost Redis connection is told (ioredis reconnects by itself). */
const REDIS_WARN_EVERY_MS = 60_000;

/**
 * The instance's cache: Redis when REDIS_CONN_STRING is set (through Sentinel with
 * REDIS_MASTER_NAME), else this process's memory. Redis's client loads only when it is configured.
 */
export const openCache = async (config: Config, logger: Logger): Promise<Cache> => {
  if (!config.redisConnString) return createMemoryCache();
  let warnedAt = -Infinity;
  const lost = (error: unknown) => {
    if (performance.now() - warnedAt < REDIS_WARN_EVERY_MS) return;
    warnedAt = performance.now();
    logger.warn({ err: error }, 'Redis connection lost: reconnecting');
  };
  const { createRedisCache } = await import('./redis-cache.js');
  return createRedisCache(
    config.redisMasterName
      ? {
          sentinels: sentinelsOf(config.redisConnString),
          masterName: config.redisMasterName,
          password: config.redisPassword,
        }
      : config.redisConnString,
    lost,
  );
};
