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
export const pickClientIp = (
  forwardedFor: string | undefined,
  socketAddress: string | undefined,
  trustProxy: boolean,
): string => {
  if (trustProxy) {
    const forwarded = forwardedFor?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  return socketAddress ?? 'unknown';
};

/** {@link pickClientIp} for a Hono request. */
export const clientIp = (c: Context, trustProxy: boolean): string => {
  let socketAddress: string | undefined;
  try {
    socketAddress = getConnInfo(c).remote.address;
  } catch {
    socketAddress = undefined;
  }
  return pickClientIp(c.req.header('x-forwarded-for'), socketAddress, trustProxy);
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
