import { isAdminOptionKey, mayChangeOption } from '@sluice/contract/option-access';
import { ROLES, isRootRole } from '@sluice/contract/roles';
import { updateOptionRequestSchema } from '@sluice/contract/schemas/option';
import { Hono } from 'hono';
import { businessError } from '../lib/app-error.js';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, readJson } from './respond.js';

export const ROOT_ONLY_OPTION = 'no permission: only the super administrator can change this option';

/**
 * GET and PUT /api/option/. Root reads and changes every option; an administrator (role 10) only
 * the options of `@sluice/contract/option-access` (one-api answers root alone). Secret values are
 * never answered, to anyone.
 */
export const optionRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', requireRole(services, ROLES.admin));
  routes.get('/', (c) => {
    const options = services.options.listPublic();
    return ok(
      c,
      isRootRole(c.get('user').role) ? options : options.filter(({ key }) => isAdminOptionKey(key)),
    );
  });
  routes.put('/', async (c) => {
    const input = await readJson(c, updateOptionRequestSchema);
    if (!mayChangeOption(input.key, c.get('user').role)) throw businessError(ROOT_ONLY_OPTION);
    await services.options.update(input.key, input.value);
    return ok(c);
  });
  return routes;
};
