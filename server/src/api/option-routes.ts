import { ROLES } from '@sluice/contract/roles';
import { updateOptionRequestSchema } from '@sluice/contract/schemas/option';
import { Hono } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, readJson } from './respond.js';

/** GET and PUT /api/option/ (root only); secret values are never answered. */
export const optionRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', requireRole(services, ROLES.root));
  routes.get('/', (c) => ok(c, services.options.listPublic()));
  routes.put('/', async (c) => {
    const input = await readJson(c, updateOptionRequestSchema);
    await services.options.update(input.key, input.value);
    return ok(c);
  });
  return routes;
};
