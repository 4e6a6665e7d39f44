import { ROLES } from '@sluice/contract/roles';
import { Hono } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok } from './respond.js';

/** GET /api/group/ (admin): the group names, keys of the GroupRatio option. */
export const groupRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.get('/', requireRole(services, ROLES.admin), (c) =>
    ok(c, Object.keys(services.options.values.GroupRatio)),
  );
  return routes;
};
