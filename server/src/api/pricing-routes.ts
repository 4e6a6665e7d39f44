import { ROLES } from '@sluice/contract/roles';
import { Hono, type MiddlewareHandler } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import type { UserRow } from '../services/user-record.js';
import type { ChannelOperations } from './channel-operation-routes.js';
import { requireRole } from './middleware/auth.js';

/** The group a visitor's prices are those of. */
const VISITOR_GROUP = 'default';

/**
 * A signed-in user (session or access token) as every user route; with PricingPublic on, a caller
 * with neither passes as a visitor (no user). A caller who shows credentials is checked as usual.
 */
const userOrVisitor = (services: Services): MiddlewareHandler<AppEnv> => {
  const user = requireRole(services, ROLES.common);
  return async (c, next) => {
    const session = c.get('session');
    const signedIn =
      (session !== undefined && session.userId > 0) || c.req.header('authorization') !== undefined;
    if (!signedIn && services.options.values.PricingPublic) return next();
    return user(c, next);
  };
};

/**
 * GET /api/pricing: the models of the caller's group (a visitor's: the default group's) with their
 * prices, as new-api shapes it: the rows in `data`, the group's ratio beside them.
 */
export const pricingRoutes = (services: Services, operations: ChannelOperations) => {
  const routes = new Hono<AppEnv>({ strict: false });
  routes.get('/', userOrVisitor(services), async (c) => {
    // Unset for a visitor: the middleware let them through without a user.
    const user = c.get('user') as UserRow | undefined;
    const group = user?.group || VISITOR_GROUP;
    const list = await services.pricing.list(group, operations.modelOwner);
    return c.json({ success: true, message: '', ...list });
  });
  return routes;
};
