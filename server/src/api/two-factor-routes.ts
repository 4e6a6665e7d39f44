import { ROLES, isRootRole } from '@sluice/contract/roles';
import { twoFactorCodeRequestSchema } from '@sluice/contract/schemas/two-factor';
import { Hono, type MiddlewareHandler } from 'hono';
import { businessError } from '../lib/app-error.js';
import type { Services } from '../services/services.js';
import { toLoginRecord } from '../services/user-record.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, readId, readJson } from './respond.js';
import { recordOwnSecondFactor } from './second-factor-audit.js';
import { startUserSession } from './session-helpers.js';
import { attemptSignIn, pendingSignIn, recordSignIn } from './sign-in-flow.js';

/**
 * Two-factor sign-in under /api/user: the second step of a sign-in (POST /login/2fa), the caller's
 * TOTP (status, setup, enable with a first code, disable, new recovery codes), and an
 * administrator's reset of a user's second factors (DELETE /:id/2fa, audited by the trail).
 * Mounted before the admin routes, whose `/:id` would take `/2fa`.
 */
export const twoFactorRoutes = (services: Services, critical: MiddlewareHandler) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const enrolling = requireRole(services, ROLES.common, { enrolling: true });
  const signedIn = requireRole(services, ROLES.common);
  const admin = requireRole(services, ROLES.admin);
  const twoFactor = services.twoFactor;

  routes.post('/login/2fa', critical, async (c) => {
    const { code } = await readJson(c, twoFactorCodeRequestSchema);
    const { user, method } = await pendingSignIn(c, services);
    const kind = await attemptSignIn(c, services, `${method}+totp`, user.username, () =>
      twoFactor.verify(user.id, code),
    );
    await startUserSession(c, services, user.id);
    await recordSignIn(c, services, `${method}+${kind}`, { user });
    return ok(c, toLoginRecord(user));
  });

  routes.get('/2fa', enrolling, async (c) => ok(c, await twoFactor.status(c.get('user'))));
  routes.post('/2fa/totp/setup', enrolling, async (c) => ok(c, await twoFactor.setup(c.get('user'))));
  routes.post('/2fa/totp/enable', enrolling, critical, async (c) => {
    const { code } = await readJson(c, twoFactorCodeRequestSchema);
    const codes = await twoFactor.enable(c.get('user').id, code);
    await recordOwnSecondFactor(c, services, 'enable', { before: { totp: false }, after: { totp: true } });
    return ok(c, { recovery_codes: codes });
  });
  routes.post('/2fa/totp/disable', signedIn, critical, async (c) => {
    const { code } = await readJson(c, twoFactorCodeRequestSchema);
    await twoFactor.disable(c.get('user').id, code);
    await recordOwnSecondFactor(c, services, 'disable', { before: { totp: true }, after: { totp: false } });
    return ok(c);
  });
  routes.post('/2fa/recovery_codes', signedIn, critical, async (c) => {
    const { code } = await readJson(c, twoFactorCodeRequestSchema);
    return ok(c, { recovery_codes: await twoFactor.renewRecoveryCodes(c.get('user').id, code) });
  });

  routes.delete('/:id/2fa', admin, async (c) => {
    const actor = c.get('user');
    const target = await services.users.findById(readId(c));
    if (!target) throw businessError('user does not exist');
    if (!isRootRole(actor.role) && actor.role <= target.role)
      throw businessError('no permission to update users of the same or higher level');
    await twoFactor.reset(target.id);
    return ok(c);
  });

  return routes;
};
