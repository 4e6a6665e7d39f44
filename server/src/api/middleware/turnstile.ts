import type { MiddlewareHandler } from 'hono';
import { businessError } from '../../lib/app-error.js';
import type { Services } from '../../services/services.js';
import type { AppEnv } from '../../http/app-env.js';
import { saveSessionData } from '../session-helpers.js';
import { clientIp } from '../../http/client-ip.js';

export const TURNSTILE_EMPTY = 'Turnstile token is empty';
export const TURNSTILE_FAILED = 'Turnstile check failed, refresh and retry';

/**
 * one-api's TurnstileCheck: with TurnstileCheckEnabled, a session that passed once passes; otherwise
 * the `turnstile` query parameter must pass Cloudflare's siteverify, and the session remembers it.
 */
export const turnstileCheck =
  (services: Services): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (!services.humanCheck.enabled() || c.get('session')?.data.turnstile === true) return next();
    const token = c.req.query('turnstile') ?? '';
    if (token === '') throw businessError(TURNSTILE_EMPTY);
    const ip = clientIp(c, services.deps.config.trustProxy);
    const passed = await services.humanCheck.verify(token, ip === 'unknown' ? undefined : ip);
    if (!passed) throw businessError(TURNSTILE_FAILED);
    await saveSessionData(c, services, { turnstile: true });
    return next();
  };
