import type { Context } from 'hono';
import { deleteCookie, getSignedCookie, setSignedCookie } from 'hono/cookie';
import { SESSION_TTL_SECONDS } from '../../services/session-store.js';

export const SESSION_COOKIE = 'session';

const isHttps = (c: Context): boolean =>
  new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';

/** The session id from the signed cookie, or undefined when absent or tampered with. */
export const readSessionId = async (c: Context, secret: string): Promise<string | undefined> => {
  const value = await getSignedCookie(c, secret, SESSION_COOKIE);
  return typeof value === 'string' && value !== '' ? value : undefined;
};

export const writeSessionCookie = async (c: Context, secret: string, sessionId: string): Promise<void> => {
  await setSignedCookie(c, SESSION_COOKIE, sessionId, secret, {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: isHttps(c),
    maxAge: SESSION_TTL_SECONDS,
  });
};

export const clearSessionCookie = (c: Context): void => {
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
};
