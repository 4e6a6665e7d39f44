import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';

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
