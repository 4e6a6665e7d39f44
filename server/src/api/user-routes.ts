import { ROLES } from '@sluice/contract/roles';
import { redeemRequestSchema } from '@sluice/contract/schemas/redemption';
import {
  loginRequestSchema,
  registerRequestSchema,
  updateSelfRequestSchema,
} from '@sluice/contract/schemas/user';
import { Hono, type MiddlewareHandler } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { turnstileCheck } from './middleware/turnstile.js';
import { clearSessionCookie } from './middleware/session-cookie.js';
import { ok, readJson } from './respond.js';
import { attemptSignIn, finishSignIn } from './sign-in-flow.js';

/** Account and session routes under /api/user (one-api §3.2). */
export const userRoutes = (services: Services, critical: MiddlewareHandler) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const signedIn = requireRole(services, ROLES.common);

  routes.post('/login', critical, async (c) => {
    const input = await readJson(c, loginRequestSchema);
    const user = await attemptSignIn(c, services, 'password', input.username, () =>
      services.users.login(input.username, input.password),
    );
    return finishSignIn(c, services, user, 'password');
  });

  routes.get('/logout', async (c) => {
    const session = c.get('session');
    if (session) await services.sessions.remove(session.id);
    clearSessionCookie(c);
    return ok(c);
  });

  routes.post('/register', critical, turnstileCheck(services), async (c) => {
    await services.users.register(await readJson(c, registerRequestSchema));
    return ok(c);
  });

  // An administrator who must still set up a second factor reads their account (the console needs it).
  const enrolling = requireRole(services, ROLES.common, { enrolling: true });
  routes.get('/self', enrolling, async (c) => ok(c, await services.users.getSelf(c.get('user').id)));

  routes.put('/self', signedIn, async (c) => {
    await services.users.updateSelf(c.get('user').id, await readJson(c, updateSelfRequestSchema));
    return ok(c);
  });

  routes.delete('/self', signedIn, async (c) => {
    await services.users.deleteSelf(c.get('user').id);
    clearSessionCookie(c);
    return ok(c);
  });

  routes.get('/token', signedIn, async (c) =>
    ok(c, await services.users.regenerateAccessToken(c.get('user').id)),
  );

  routes.post('/topup', signedIn, async (c) => {
    const input = await readJson(c, redeemRequestSchema);
    const user = c.get('user');
    return ok(c, await services.redemptions.redeem(user.id, user.username, input.key));
  });

  routes.get('/aff', signedIn, async (c) => ok(c, await services.users.affCode(c.get('user').id)));

  return routes;
};
