import { ROLES } from '@sluice/contract/roles';
import { Hono } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok } from './respond.js';

/**
 * GET /api/user/dashboard (one-api): the caller's consumption of the last 7 days per day and model.
 * Mounted at /user before the admin user routes, whose `/:id` would otherwise answer this path.
 */
export const userDashboardRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.get('/dashboard', requireRole(services, ROLES.common), async (c) =>
    ok(c, await services.usage.dashboard(c.get('user').id)),
  );
  return routes;
};
