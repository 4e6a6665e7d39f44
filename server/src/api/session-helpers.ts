import type { Context } from 'hono';
import type { Services } from '../services/services.js';
import type { Session, SessionData } from '../services/session-store.js';
import type { AppEnv } from '../http/app-env.js';
import { writeSessionCookie } from './middleware/session-cookie.js';

/** The request's session, or a new anonymous one (user 0) with its cookie. */
export const ensureSession = async (c: Context<AppEnv>, services: Services): Promise<Session> => {
  const existing = c.get('session');
  if (existing) return existing;
  const session = await services.sessions.create(0);
  await writeSessionCookie(c, services.deps.config.sessionSecret, session.id);
  c.set('session', session);
  return session;
};

/** Merges values into the session's data (creating an anonymous session when there is none). */
export const saveSessionData = async (
  c: Context<AppEnv>,
  services: Services,
  patch: SessionData,
): Promise<void> => {
  const session = await ensureSession(c, services);
  const data = { ...session.data, ...patch };
  await services.sessions.update(session.id, session.userId, data);
  c.set('session', { ...session, data });
};

/** A fresh session (a new id and cookie) replaces the request's: for user 0 it signs no one in. */
export const replaceSession = async (
  c: Context<AppEnv>,
  services: Services,
  userId: number,
  data: SessionData = {},
): Promise<void> => {
  const previous = c.get('session');
  if (previous) await services.sessions.remove(previous.id);
  const session = await services.sessions.create(userId, data);
  await writeSessionCookie(c, services.deps.config.sessionSecret, session.id);
  c.set('session', session);
};

/** Signs a user in as the password login does: a fresh session replaces the old one. */
export const startUserSession = (c: Context<AppEnv>, services: Services, userId: number): Promise<void> =>
  replaceSession(c, services, userId);
