import { ROLES } from '@sluice/contract/roles';
import { pageQuerySchema } from '@sluice/contract/schemas/common';
import {
  createRedemptionRequestSchema,
  redemptionStatusRequestSchema,
  updateRedemptionRequestSchema,
} from '@sluice/contract/schemas/redemption';
import { Hono } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, okPage, readId, readJson, readKeyword, readQuery } from './respond.js';

/** /api/redemption (admin). */
export const redemptionRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', requireRole(services, ROLES.admin));
  const redemptions = services.redemptions;

  routes.get('/', async (c) => {
    const query = readQuery(c, pageQuerySchema);
    const [items, total] = await Promise.all([redemptions.list(query.p, query.size), redemptions.count()]);
    return okPage(c, items, total);
  });
  routes.get('/search', async (c) => ok(c, await redemptions.search(readKeyword(c))));
  routes.get('/:id', async (c) => ok(c, await redemptions.get(readId(c))));
  routes.post('/', async (c) =>
    ok(c, await redemptions.create(c.get('user').id, await readJson(c, createRedemptionRequestSchema))),
  );
  routes.put('/', async (c) => {
    if (c.req.query('status_only')) {
      const input = await readJson(c, redemptionStatusRequestSchema);
      return ok(c, await redemptions.setStatus(input.id, input.status));
    }
    return ok(c, await redemptions.update(await readJson(c, updateRedemptionRequestSchema)));
  });
  routes.delete('/:id', async (c) => {
    await redemptions.remove(readId(c));
    return ok(c);
  });
  return routes;
};
