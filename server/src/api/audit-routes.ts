import { ROLES } from '@sluice/contract/roles';
import { auditFilterSchema, auditListQuerySchema } from '@sluice/contract/schemas/audit';
import { Hono } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { csvResponse } from './csv-response.js';
import { requireRole } from './middleware/auth.js';
import { okPage, readQuery } from './respond.js';

/**
 * /api/audit (administrators): the audit log, filtered by who, object type, action and time, a page
 * at a time or as CSV. Read-only: no route changes or deletes a row (only the retention job does).
 */
export const auditRoutes = (services: Services) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.use('*', requireRole(services, ROLES.admin));
  routes.get('/', async (c) => {
    const query = readQuery(c, auditListQuerySchema);
    const [rows, total] = await Promise.all([
      services.audit.list(query, query.p, query.size),
      services.audit.count(query),
    ]);
    return okPage(c, rows, total);
  });
  routes.get('/export', (c) =>
    csvResponse(c, services.audit.exportCsv(readQuery(c, auditFilterSchema)), 'audit'),
  );
  return routes;
};
