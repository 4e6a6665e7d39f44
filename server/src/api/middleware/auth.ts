import { ROLES, isAdminRole } from '@sluice/contract/roles';
import { USER_STATUS } from '@sluice/contract/statuses';
import type { MiddlewareHandler } from 'hono';
import { AppError, businessError } from '../../lib/app-error.js';
import type { Services } from '../../services/services.js';
import type { AppEnv } from '../../http/app-env.js';
import { clearSessionCookie, readSessionId } from './session-cookie.js';

export const NOT_LOGGED_IN = 'no permission: not logged in and no access token';
export const TWO_FACTOR_REQUIRED =
  'two-factor authentication is required for administrators: turn it on in the personal settings';

const accessTokenOf = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined;
  const value = header.trim();
  return value.toLowerCase().startsWith('bearer ') ? value.slice(7).trim() : value;
};

/** Loads the session (if any) into the context; every /api request passes here. */
export const loadSession =
  (services: Services): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const id = await readSessionId(c, services.deps.config.sessionSecret);
    c.set('session', id ? await services.sessions.find(id) : undefined);
    await next();
  };

/**
 * The role gate of one-api (§2.3): a session user, else the access token of `Authorization`; 401
 * only when there is neither; every other refusal is a business error. With TwoFactorRequiredForAdmins
 * on, an administrator's session without a second factor passes only the gates marked `enrolling`
 * (their account and the second factor's setup); access tokens are not concerned.
 */
export const requireRole =
  (
    services: Services,
    minimum: number = ROLES.common,
    gate: { readonly enrolling?: boolean } = {},
  ): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const session = c.get('session');
    const header = c.req.header('authorization');
    let user;
    if (session && session.userId > 0) {
      user = await services.users.findById(session.userId);
      if (!user) {
        await services.sessions.remove(session.id);
        clearSessionCookie(c);
        throw new AppError('unauthorized', NOT_LOGGED_IN, 401);
      }
    } else {
      const token = accessTokenOf(header);
      if (token === undefined) throw new AppError('unauthorized', NOT_LOGGED_IN, 401);
      user = await services.users.findByAccessToken(token);
      if (!user) throw businessError('no permission: the access token is invalid');
    }
    if (user.status !== USER_STATUS.enabled) {
      if (session) {
        await services.sessions.remove(session.id);
        clearSessionCookie(c);
      }
      throw businessError('the user is banned');
    }
    if (user.role < minimum) throw businessError('no permission: insufficient role');
    if (
      session &&
      session.userId > 0 &&
      !gate.enrolling &&
      isAdminRole(user.role) &&
      services.options.values.TwoFactorRequiredForAdmins &&
      !(await services.twoFactor.hasSecondFactor(user.id))
    )
      throw businessError(TWO_FACTOR_REQUIRED);
    c.set('user', user);
    await next();
  };
