import { ROLES } from '@sluice/contract/roles';
import { Hono } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok } from './respond.js';

/**
 * GET /api/user/available_models (any user): the models of the caller's group. Mounted at /user
 * after the account routes and before the admin `/:id` routes; the gate is per route, never `*`.
 */
export const userModelRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.get('/available_models', requireRole(services, ROLES.common), async (c) =>
    ok(c, await services.channels.availableModels(c.get('user').group || 'default')),
  );
  return routes;
};
