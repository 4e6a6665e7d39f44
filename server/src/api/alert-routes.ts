import { ROLES } from '@sluice/contract/roles';
import { alertDeliveryQuerySchema, alertTestSchema } from '@sluice/contract/schemas/alerts';
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import type { Services } from '../services/services.js';
import { requireRole } from './middleware/auth.js';
import { ok, okPage, readJson, readQuery } from './respond.js';

/**
 * /api/alert (administrators): the configured webhooks (names, URLs' origins and events; never a
 * secret), the delivery log a page at a time, and a test event sent to one webhook (one attempt,
 * recorded; the answer is its row). The webhooks themselves are the AlertWebhooks option: root's.
 */
export const alertRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', requireRole(services, ROLES.admin));
  routes.get('/webhooks', (c) => ok(c, services.alerts.webhooks()));
  routes.get('/deliveries', async (c) => {
    const query = readQuery(c, alertDeliveryQuerySchema);
    const [rows, total] = await Promise.all([services.alerts.list(query), services.alerts.count(query)]);
    return okPage(c, rows, total);
  });
  routes.post('/test', async (c) => {
    const { name } = await readJson(c, alertTestSchema);
    return ok(c, await services.alerts.sendTest(name, c.get('user').username));
  });
  return routes;
};
