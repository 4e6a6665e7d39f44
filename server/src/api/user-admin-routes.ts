import { LIST_ORDERS } from '@sluice/contract/list-orders';
import { ROLES } from '@sluice/contract/roles';
import { pageQuerySchema } from '@sluice/contract/schemas/common';
import {
  adminTopUpRequestSchema,
  createUserRequestSchema,
  manageUserRequestSchema,
  updateUserRequestSchema,
} from '@sluice/contract/schemas/user';
import { Hono } from 'hono';
import { z } from 'zod';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, okPage, readId, readJson, readKeyword, readQuery } from './respond.js';

const listQuerySchema = pageQuerySchema.extend({
  order: z.enum(LIST_ORDERS.users).catch(''),
});

/**
 * Admin routes under /api/user, mounted after the account routes (whose /self, /token, … win over
 * `/:id`); each route carries its own gate.
 */
export const userAdminRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const admin = requireRole(services, ROLES.admin);
  const users = services.userAdmin;
  const actor = (user: { id: number; role: number }) => ({ id: user.id, role: user.role });

  routes.get('/', admin, async (c) => {
    const query = readQuery(c, listQuerySchema);
    const [items, total] = await Promise.all([users.list(query.p, query.order, query.size), users.count()]);
    return okPage(c, items, total);
  });
  routes.get('/search', admin, async (c) => ok(c, await users.search(readKeyword(c))));
  routes.post('/manage', admin, async (c) => {
    const input = await readJson(c, manageUserRequestSchema);
    return ok(c, await users.manage(actor(c.get('user')), input.username, input.action));
  });
  routes.get('/:id', admin, async (c) => ok(c, await users.get(actor(c.get('user')), readId(c))));
  routes.post('/', admin, async (c) => {
    await users.create(actor(c.get('user')), await readJson(c, createUserRequestSchema));
    return ok(c);
  });
  routes.put('/', admin, async (c) =>
    ok(c, await users.update(actor(c.get('user')), await readJson(c, updateUserRequestSchema))),
  );
  routes.delete('/:id', admin, async (c) => {
    await users.remove(actor(c.get('user')), readId(c));
    return ok(c);
  });
  return routes;
};

/** POST /api/topup: admin top-up for payment integrations. */
export const adminTopUpRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.post('/', requireRole(services, ROLES.admin), async (c) => {
    const input = await readJson(c, adminTopUpRequestSchema);
    await services.quota.topUp(input.user_id, input.quota, input.remark);
    return ok(c);
  });
  return routes;
};
