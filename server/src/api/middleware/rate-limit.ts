import type { MiddlewareHandler } from 'hono';
import type { Cache } from '../../cache/cache.js';
import { clientIp } from '../../http/client-ip.js';

export interface RateLimit {
  /** Prefix of the client's key (one-api: GA, GW, CT). */
  readonly mark: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/** one-api's per-IP limiter: over the limit answers 429 with an empty body; limit 0 disables it. */
export const rateLimit =
  (cache: Cache, rule: RateLimit, trustProxy: boolean, disabled: boolean): MiddlewareHandler =>
  async (c, next) => {
    if (disabled || rule.limit <= 0) return next();
    const allowed = await cache.allowRequest(
      rule.mark + clientIp(c, trustProxy),
      rule.limit,
      rule.windowSeconds,
    );
    if (!allowed) return c.body(null, 429);
    return next();
  };
