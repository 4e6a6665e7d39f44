import { ROLES } from '@sluice/contract/roles';
import { createChannelRequestSchema, updateChannelRequestSchema } from '@sluice/contract/schemas/channel';
import { pageQuerySchema } from '@sluice/contract/schemas/common';
import { Hono } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import type { ChannelOperations } from './channel-operation-routes.js';
import { requireRole } from './middleware/auth.js';
import { ok, okPage, readId, readJson, readKeyword, readQuery } from './respond.js';

/**
 * /api/channel (admin; one-api §3.7). Keys are never answered. `/search`, `/served_models` and
 * `/disabled` come before `/:id`; other modules mounted at /channel (test, update_balance, models)
 * must be mounted before this one, or their one-segment paths would reach `/:id`.
 */
export const channelRoutes = (services: Services, operations?: Pick<ChannelOperations, 'breaker'>) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', requireRole(services, ROLES.admin));
  const channels = services.channels;
  // Each channel answered with its breaker's state on this instance (the relay's).
  const withBreaker = <T extends { id: number }>(item: T) => {
    const view = operations?.breaker?.(item.id);
    return view ? { ...item, breaker_state: view.state, cooled_until: view.cooledUntil } : item;
  };
  const withBreakers = <T extends { id: number }>(items: readonly T[]) => items.map(withBreaker);

  routes.get('/', async (c) => {
    const query = readQuery(c, pageQuerySchema);
    const [items, total] = await Promise.all([channels.list(query.p, query.size), channels.count()]);
    return okPage(c, withBreakers(items), total);
  });
  routes.get('/search', async (c) => ok(c, withBreakers(await channels.search(readKeyword(c)))));
  // Sluice's own: the models of every channel, enabled or not (the ratio editor's missing prices).
  routes.get('/served_models', async (c) => ok(c, await channels.servedModels()));
  routes.get('/:id', async (c) => ok(c, withBreaker(await channels.get(readId(c)))));
  routes.post('/', async (c) => {
    await channels.create(await readJson(c, createChannelRequestSchema));
    return ok(c);
  });
  routes.put('/', async (c) =>
    ok(c, withBreaker(await channels.update(await readJson(c, updateChannelRequestSchema)))),
  );
  routes.delete('/disabled', async (c) => ok(c, await channels.removeDisabled()));
  routes.delete('/:id', async (c) => {
    await channels.remove(readId(c));
    return ok(c);
  });
  return routes;
};
