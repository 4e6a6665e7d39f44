import type { Hono, MiddlewareHandler } from 'hono';
import type { Services } from '../services/services.js';
import { accountMailRoutes } from './account-mail-routes.js';
import { alertRoutes } from './alert-routes.js';
import { auditRoutes } from './audit-routes.js';
import type { AppEnv } from '../http/app-env.js';
import {
  channelOperationRoutes,
  modelCatalogueRoutes,
  type ChannelOperations,
} from './channel-operation-routes.js';
import { channelRoutes } from './channel-routes.js';
import { groupRoutes } from './group-routes.js';
import { logRoutes } from './log-routes.js';
import { oauthRoutes } from './oauth-routes.js';
import { passkeyRoutes } from './passkey-routes.js';
import { optionRoutes } from './option-routes.js';
import { pricingRoutes } from './pricing-routes.js';
import { redemptionRoutes } from './redemption-routes.js';
import { tokenRoutes } from './token-routes.js';
import { twoFactorRoutes } from './two-factor-routes.js';
import { adminTopUpRoutes, userAdminRoutes } from './user-admin-routes.js';
import { statusRoutes } from './status-routes.js';
import { liveDashboardRoutes, userLiveDashboardRoutes } from './live-dashboard-routes.js';
import { userDashboardRoutes } from './user-dashboard-routes.js';
import { userModelRoutes } from './user-model-routes.js';
import { userRoutes } from './user-routes.js';

export interface RouteDeps {
  readonly services: Services;
  /** The critical per-IP limiter (login, registration, verification, reset, OAuth). */
  readonly critical: MiddlewareHandler;
  readonly startTime: number;
  /** Channel tests, balances and the model catalogue: built in channels/, passed in by boot.ts. */
  readonly channelOperations: ChannelOperations;
}

/** The /api route table: one row per URL segment. */
export const API_ROUTES: readonly [path: string, build: (deps: RouteDeps) => Hono<AppEnv>][] = [
  ['/', (deps) => statusRoutes(deps.services.options, deps.startTime)],
  ['/', (deps) => accountMailRoutes(deps.services, deps.critical)],
  ['/user', (deps) => userRoutes(deps.services, deps.critical)],
  ['/user', (deps) => twoFactorRoutes(deps.services, deps.critical)],
  ['/user', (deps) => passkeyRoutes(deps.services, deps.critical)],
  ['/user', (deps) => userDashboardRoutes(deps.services)],
  ['/user', (deps) => userLiveDashboardRoutes(deps.services, deps.channelOperations)],
  ['/user', (deps) => userModelRoutes(deps.services)],
  ['/user', (deps) => userAdminRoutes(deps.services)],
  ['/token', (deps) => tokenRoutes(deps.services)],
  ['/redemption', (deps) => redemptionRoutes(deps.services)],
  ['/models', (deps) => modelCatalogueRoutes(deps.services, deps.channelOperations)],
  ['/channel', (deps) => channelOperationRoutes(deps.services, deps.channelOperations)],
  ['/channel', (deps) => channelRoutes(deps.services, deps.channelOperations)],
  ['/group', (deps) => groupRoutes(deps.services)],
  ['/topup', (deps) => adminTopUpRoutes(deps.services)],
  ['/option', (deps) => optionRoutes(deps.services)],
  ['/log', (deps) => logRoutes(deps.services)],
  ['/dashboard', (deps) => liveDashboardRoutes(deps.services, deps.channelOperations)],
  ['/oauth', (deps) => oauthRoutes(deps.services, deps.critical)],
  ['/audit', (deps) => auditRoutes(deps.services)],
  ['/alert', (deps) => alertRoutes(deps.services)],
  ['/pricing', (deps) => pricingRoutes(deps.services, deps.channelOperations)],
];
