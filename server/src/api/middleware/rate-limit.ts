import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Cache } from '../../cache/cache.js';

export interface RateLimit {
  /** Prefix of the client's key (one-api: GA, GW, CT). */
  readonly mark: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/** The client's address: the socket's, or the first X-Forwarded-For hop when the proxy is trusted. */
export const clientIp = (c: Context, trustProxy: boolean): string => {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
};

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
