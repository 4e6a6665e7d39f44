import { emailQuerySchema, passwordResetRequestSchema } from '@sluice/contract/schemas/account';
import { Hono, type MiddlewareHandler } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { turnstileCheck } from './middleware/turnstile.js';
import { ok, readJson, readQuery } from './respond.js';

/** Email verification codes and password reset (one-api §3.2), public and behind the critical limit. */
export const accountMailRoutes = (services: Services, critical: MiddlewareHandler) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const human = turnstileCheck(services);

  routes.get('/verification', critical, human, async (c) => {
    await services.accountMail.sendVerificationCode(readQuery(c, emailQuerySchema).email);
    return ok(c);
  });

  routes.get('/reset_password', critical, human, async (c) => {
    await services.accountMail.sendPasswordReset(readQuery(c, emailQuerySchema).email);
    return ok(c);
  });

  routes.post('/user/reset', critical, async (c) => {
    const input = await readJson(c, passwordResetRequestSchema);
    return ok(c, await services.accountMail.resetPassword(input.email, input.token));
  });

  return routes;
};
