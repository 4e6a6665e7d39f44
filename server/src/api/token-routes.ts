import { LIST_ORDERS } from '@sluice/contract/list-orders';
import { ROLES } from '@sluice/contract/roles';
import {
  createTokenRequestSchema,
  tokenStatusRequestSchema,
  updateTokenRequestSchema,
} from '@sluice/contract/schemas/token';
import { pageQuerySchema } from '@sluice/contract/schemas/common';
import { Hono } from 'hono';
import { z } from 'zod';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, okPage, readId, readJson, readKeyword, readQuery } from './respond.js';

const listQuerySchema = pageQuerySchema.extend({
  order: z.enum(LIST_ORDERS.tokens).catch(''),
});

/** /api/token: a user's own tokens only. */
export const tokenRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', requireRole(services, ROLES.common));
  const tokens = services.tokens;

  routes.get('/', async (c) => {
    const query = readQuery(c, listQuerySchema);
    const userId = c.get('user').id;
    const [items, total] = await Promise.all([
      tokens.list(userId, query.p, query.order, query.size),
      tokens.count(userId),
    ]);
    return okPage(c, items, total);
  });
  routes.get('/search', async (c) => ok(c, await tokens.search(c.get('user').id, readKeyword(c))));
  routes.get('/:id', async (c) => ok(c, await tokens.get(c.get('user').id, readId(c))));
  routes.post('/', async (c) =>
    ok(c, await tokens.create(c.get('user').id, await readJson(c, createTokenRequestSchema))),
  );
  routes.put('/', async (c) => {
    const userId = c.get('user').id;
    if (c.req.query('status_only')) {
      const input = await readJson(c, tokenStatusRequestSchema);
      return ok(c, await tokens.setStatus(userId, input.id, input.status));
    }
    return ok(c, await tokens.update(userId, await readJson(c, updateTokenRequestSchema)));
  });
  routes.delete('/:id', async (c) => {
    await tokens.remove(c.get('user').id, readId(c));
    return ok(c);
  });
  return routes;
};
