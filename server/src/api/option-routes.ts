import { isAdminOptionKey, mayChangeOption } from '@sluice/contract/option-access';
import { ROLES, isRootRole } from '@sluice/contract/roles';
import {
  updateOptionRequestSchema,
  updateOptionsRequestSchema,
  type Option,
} from '@sluice/contract/schemas/option';
import { Hono, type Context } from 'hono';
import { businessError } from '../lib/app-error.js';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, readJson } from './respond.js';

export const ROOT_ONLY_OPTION = 'no permission: only the super administrator can change this option';

/** What the caller may read of a list of options: root everything, an administrator their own. */
const visible = (c: Context<AppEnv>, options: Option[]): Option[] =>
  isRootRole(c.get('user').role) ? options : options.filter(({ key }) => isAdminOptionKey(key));

/**
 * GET and PUT /api/option/. Root reads and changes every option; an administrator (role 10) only
 * the options of `@sluice/contract/option-access` (one-api answers root alone). Secret values are
 * never answered, to anyone. Sluice's own: GET /api/option/defaults (the shipped default of each
 * option the caller may read, shown as GET / shows values: the console's "reset to default") and
 * PUT /api/option/batch (a settings section's options, all or nothing).
 */
export const optionRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', requireRole(services, ROLES.admin));
  routes.get('/', (c) => ok(c, visible(c, services.options.listPublic())));
  routes.get('/defaults', (c) => ok(c, visible(c, services.options.listDefaults())));
  routes.put('/', async (c) => {
    const input = await readJson(c, updateOptionRequestSchema);
    if (!mayChangeOption(input.key, c.get('user').role)) throw businessError(ROOT_ONLY_OPTION);
    await services.options.update(input.key, input.value);
    return ok(c);
  });
  routes.put('/batch', async (c) => {
    const updates = await readJson(c, updateOptionsRequestSchema);
    const refused = updates.find(({ key }) => !mayChangeOption(key, c.get('user').role));
    if (refused) throw businessError(`${refused.key}: ${ROOT_ONLY_OPTION}`);
    await services.options.updateMany(updates);
    return ok(c);
  });
  return routes;
};
