import { ROLES } from '@sluice/contract/roles';
import { emailBindQuerySchema, oauthCallbackQuerySchema } from '@sluice/contract/schemas/account';
import { USER_STATUS } from '@sluice/contract/statuses';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { businessError } from '../lib/app-error.js';
import { USER_BANNED } from '../services/oauth-service.js';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, readQuery } from './respond.js';
import { ensureSession } from './session-helpers.js';
import { attemptSignIn, finishSignIn } from './sign-in-flow.js';

export const STATE_MISMATCH = { success: false, message: 'state is empty or not same' } as const;

/** Third-party login and binding under /api/oauth (one-api §3.3), all behind the critical limit. */
export const oauthRoutes = (services: Services, critical: MiddlewareHandler) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const signedIn = requireRole(services, ROLES.common);
  routes.use('*', critical);

  routes.get('/state', async (c) => {
    const session = await ensureSession(c, services);
    return ok(c, await services.oauth.issueState(session.id));
  });

  /** GitHub and Lark: the state must match the session's; a signed-in session binds, else login. */
  const callback = (provider: 'github' | 'lark') => async (c: Context<AppEnv>) => {
    const { code, state } = readQuery(c, oauthCallbackQuerySchema);
    const session = c.get('session');
    if (!session || !(await services.oauth.stateMatches(session.id, state)))
      return c.json(STATE_MISMATCH, 403);
    if (session.userId > 0) {
      const user = await services.users.findById(session.userId);
      if (!user) throw businessError('user does not exist');
      if (user.status !== USER_STATUS.enabled) throw businessError(USER_BANNED);
      const account = await services.oauth.account(provider, code);
      if (!(await services.oauth.consumeState(session.id, state))) return c.json(STATE_MISMATCH, 403);
      await services.oauth.bind(provider, user.id, account);
      return ok(c, undefined, 'bind');
    }
    const account = await services.oauth.account(provider, code);
    if (!(await services.oauth.consumeState(session.id, state))) return c.json(STATE_MISMATCH, 403);
    const user = await attemptSignIn(c, services, provider, '', () =>
      services.oauth.login(provider, account),
    );
    return finishSignIn(c, services, user, provider);
  };
  routes.get('/github', callback('github'));
  routes.get('/lark', callback('lark'));

  routes.get('/wechat', async (c) => {
    const { code } = readQuery(c, oauthCallbackQuerySchema);
    const user = await attemptSignIn(c, services, 'wechat', '', async () =>
      services.oauth.login('wechat', await services.oauth.account('wechat', code)),
    );
    return finishSignIn(c, services, user, 'wechat');
  });

  routes.get('/wechat/bind', signedIn, async (c) => {
    const { code } = readQuery(c, oauthCallbackQuerySchema);
    const account = await services.oauth.account('wechat', code);
    await services.oauth.bind('wechat', c.get('user').id, account);
    return ok(c);
  });

  routes.get('/email/bind', signedIn, async (c) => {
    const { email, code } = readQuery(c, emailBindQuerySchema);
    await services.accountMail.bindEmail(c.get('user').id, email, code);
    return ok(c);
  });

  return routes;
};
