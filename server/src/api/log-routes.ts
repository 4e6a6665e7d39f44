import { ROLES } from '@sluice/contract/roles';
import {
  deleteLogsQuerySchema,
  logFilterSchema,
  logListQuerySchema,
  logSearchQuerySchema,
  ownLogFilterSchema,
  ownLogListQuerySchema,
  ownUsageQuerySchema,
  usageQuerySchema,
} from '@sluice/contract/schemas/log';
import { Hono, type Context } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { csvResponse } from './csv-response.js';
import { requireRole } from './middleware/auth.js';
import { ok, readQuery } from './respond.js';

/**
 * /api/log (one-api §3.8) plus CSV export and usage charts. The fixed paths (/self…, /search, /stat,
 * /export, /usage) come first; each route carries its own gate.
 */
export const logRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const admin = requireRole(services, ROLES.admin);
  const signedIn = requireRole(services, ROLES.common);
  const logs = services.logs;
  const userId = (c: Context<AppEnv>) => c.get('user').id;

  routes.get('/self/search', signedIn, async (c) =>
    ok(c, await logs.searchOwn(userId(c), readQuery(c, logSearchQuerySchema).keyword)),
  );
  routes.get('/self/stat', signedIn, async (c) =>
    ok(c, await logs.statOwn(userId(c), readQuery(c, ownLogFilterSchema))),
  );
  routes.get('/self/export', signedIn, (c) =>
    csvResponse(c, logs.exportOwnCsv(userId(c), readQuery(c, ownLogFilterSchema)), 'logs'),
  );
  routes.get('/self/usage', signedIn, async (c) =>
    ok(c, await services.usage.usageOwn(userId(c), readQuery(c, ownUsageQuerySchema))),
  );
  routes.get('/self', signedIn, async (c) => {
    const query = readQuery(c, ownLogListQuerySchema);
    return ok(c, await logs.listOwn(userId(c), query, query.p));
  });

  routes.get('/search', admin, async (c) =>
    ok(c, await logs.search(readQuery(c, logSearchQuerySchema).keyword)),
  );
  routes.get('/stat', admin, async (c) => ok(c, await logs.stat(readQuery(c, logFilterSchema))));
  routes.get('/export', admin, (c) => csvResponse(c, logs.exportCsv(readQuery(c, logFilterSchema)), 'logs'));
  routes.get('/usage', admin, async (c) => ok(c, await services.usage.usage(readQuery(c, usageQuerySchema))));
  routes.get('/', admin, async (c) => {
    const query = readQuery(c, logListQuerySchema);
    return ok(c, await logs.list(query, query.p));
  });
  routes.delete('/', admin, async (c) =>
    ok(c, await logs.deleteBefore(readQuery(c, deleteLogsQuerySchema).target_timestamp)),
  );

  return routes;
};
