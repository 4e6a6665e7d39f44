import { ROLES } from '@sluice/contract/roles';
import { emailBindQuerySchema, oauthCallbackQuerySchema } from '@sluice/contract/schemas/account';
import { USER_STATUS } from '@sluice/contract/statuses';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { businessError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { USER_BANNED } from '../services/oauth-service.js';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, readQuery } from './respond.js';
import { ensureSession, saveSessionData } from './session-helpers.js';
import { attemptSignIn, finishSignIn } from './sign-in-flow.js';

export const STATE_MISMATCH = { success: false, message: 'state is empty or not same' } as const;
/** How long an OpenID Connect sign-in may take at the provider. */
const OIDC_FLOW_SECONDS = 600;

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

  /** OpenID Connect: the provider's address for a new sign-in (or binding); its checks stay in the session. */
  routes.get('/oidc/authorize', async (c) => {
    const { url, checks } = await services.oidc.start();
    await saveSessionData(c, services, {
      oidc_state: checks.state,
      oidc_nonce: checks.nonce,
      oidc_verifier: checks.verifier,
      oidc_until: nowSeconds() + OIDC_FLOW_SECONDS,
    });
    return ok(c, url);
  });

  /**
   * The OpenID Connect callback (the console forwards the provider's whole query): the state must be
   * the session's, once; openid-client checks the rest. A signed-in session binds, else a sign-in.
   */
  routes.get('/oidc', async (c) => {
    const { state } = readQuery(c, oauthCallbackQuerySchema);
    const session = c.get('session');
    const data = session?.data;
    if (!session || !data?.oidc_state || data.oidc_state !== state || (data.oidc_until ?? 0) < nowSeconds())
      return c.json(STATE_MISMATCH, 403);
    const checks = {
      state: data.oidc_state,
      nonce: data.oidc_nonce ?? '',
      verifier: data.oidc_verifier ?? '',
    };
    await saveSessionData(c, services, {
      oidc_state: undefined,
      oidc_nonce: undefined,
      oidc_verifier: undefined,
      oidc_until: undefined,
    });
    const query = new URL(c.req.url).search.slice(1);
    if (session.userId > 0) {
      const user = await services.users.findById(session.userId);
      if (!user) throw businessError('user does not exist');
      if (user.status !== USER_STATUS.enabled) throw businessError(USER_BANNED);
      await services.oidc.bind(user.id, await services.oidc.account(query, checks));
      return ok(c, undefined, 'bind');
    }
    const user = await attemptSignIn(c, services, 'oidc', '', async () =>
      services.oidc.login(await services.oidc.account(query, checks)),
    );
    return finishSignIn(c, services, user, 'oidc');
  });

  routes.delete('/oidc/bind', signedIn, async (c) => {
    await services.oidc.unbind(c.get('user').id);
    return ok(c);
  });

  routes.get('/email/bind', signedIn, async (c) => {
    const { email, code } = readQuery(c, emailBindQuerySchema);
    await services.accountMail.bindEmail(c.get('user').id, email, code);
    return ok(c);
  });

  return routes;
};
