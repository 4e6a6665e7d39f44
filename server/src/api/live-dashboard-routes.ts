import { ROLES } from '@sluice/contract/roles';
import type { LiveChannelState } from '@sluice/contract/schemas/live-dashboard';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env.js';
import type { Services } from '../services/services.js';
import type { ChannelOperations } from './channel-operation-routes.js';
import type { LiveDashboardPort } from './live-dashboard-port.js';
import { requireRole } from './middleware/auth.js';
import { ok } from './respond.js';

const NO_COUNTERS: LiveDashboardPort = {
  gateway: () => Promise.resolve({ minutes: [], rpm: 0, tpm: 0, channels: [], models: [] }),
  user: () => Promise.resolve({ minutes: [], rpm: 0, tpm: 0 }),
};

/** The channels the breaker cools down on this instance, and the disabled ones. */
const channelStates = async (
  services: Services,
  operations: ChannelOperations,
): Promise<LiveChannelState[]> => {
  const all = await services.channels.list(0, Math.max(1, await services.channels.count()));
  const states: LiveChannelState[] = [];
  for (const channel of all) {
    if (channel.status !== CHANNEL_STATUS.enabled) {
      states.push({ id: channel.id, name: channel.name, state: 'disabled', cooled_until: 0 });
      continue;
    }
    const breaker = operations.breaker?.(channel.id);
    if (breaker && breaker.state !== 'closed')
      states.push({
        id: channel.id,
        name: channel.name,
        state: breaker.state === 'open' ? 'cooling' : 'half_open',
        cooled_until: breaker.cooledUntil,
      });
  }
  return states;
};

/** GET /api/dashboard/live (administrators): the whole gateway's last hour, per minute, channel and model. */
export const liveDashboardRoutes = (services: Services, operations: ChannelOperations) => {
  const live = operations.live ?? NO_COUNTERS;
  const routes = new Hono<AppEnv>({ strict: false });
  routes.get('/live', requireRole(services, ROLES.admin), async (c) => {
    const now = Date.now();
    const [counts, channel_states] = await Promise.all([
      live.gateway(now),
      channelStates(services, operations),
    ]);
    return ok(c, { now: Math.floor(now / 1000), ...counts, channel_states });
  });
  return routes;
};

/**
 * GET /api/user/dashboard/live: the caller's own requests and tokens per minute, RPM / TPM, and the
 * quota spent today (UTC day, from the logs' roll-ups as one-api's /api/user/dashboard).
 */
export const userLiveDashboardRoutes = (services: Services, operations: ChannelOperations) => {
  const live = operations.live ?? NO_COUNTERS;
  const routes = new Hono<AppEnv>({ strict: false });
  routes.get('/dashboard/live', requireRole(services, ROLES.common), async (c) => {
    const now = Date.now();
    const userId = c.get('user').id;
    const today = new Date(now).toISOString().slice(0, 10);
    const [counts, days] = await Promise.all([live.user(userId, now), services.usage.dashboard(userId)]);
    const spent = days.reduce((sum, row) => (row.Day === today ? sum + row.Quota : sum), 0);
    return ok(c, { now: Math.floor(now / 1000), ...counts, spent_today: spent });
  });
  return routes;
};
