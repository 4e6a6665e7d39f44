import { liveDashboardSchema, userLiveDashboardSchema } from '@sluice/contract/schemas/live-dashboard';
import { api } from '../../lib/api-client.js';

/** How often the live section reads the counters again. */
export const LIVE_POLL_MS = 5000;

/** GET /api/dashboard/live (administrators): the whole gateway's last hour. */
export const getGatewayLive = () => api.get('/api/dashboard/live', liveDashboardSchema);

/** GET /api/user/dashboard/live: the caller's own last hour and today's spend. */
export const getOwnLive = () => api.get('/api/user/dashboard/live', userLiveDashboardSchema);
