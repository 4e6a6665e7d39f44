import type { MiddlewareHandler } from 'hono';
import type { Cache } from '../../cache/cache.js';
import { clientIp } from '../../http/client-ip.js';

export interface RateLimit {
  /** Prefix of the client's key (one-api: GA, GW, CT). */
  readonly mark: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * one-api's per-IP limiter: over the limit answers 429 with an empty body; limit 0 disables it. When
 * the limiter's store cannot answer (Redis away) the request goes through: the console and the
 * status stay up, and `onFailure` is told (a warning and a metric), as the operator chose nothing
 * stricter for these per-IP limits.
 */
export const rateLimit =
  (
    cache: Cache,
    rule: RateLimit,
    trustProxy: boolean,
    disabled: boolean,
    onFailure: (error: unknown) => void,
  ): MiddlewareHandler =>
  async (c, next) => {
    if (disabled || rule.limit <= 0) return next();
    let allowed: boolean;
    try {
      allowed = await cache.allowRequest(rule.mark + clientIp(c, trustProxy), rule.limit, rule.windowSeconds);
    } catch (error) {
      onFailure(error);
      allowed = true;
    }
    if (!allowed) return c.body(null, 429);
    return next();
  };
