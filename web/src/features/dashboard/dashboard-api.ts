import { usageSchema } from '@sluice/contract/schemas/log';
import { api } from '../../lib/api-client.js';
import type { UsageRequest } from './dashboard-model.js';

/** GET /api/log/self/usage or /api/log/usage: per day and per model. */
export const getUsage = (request: UsageRequest) => api.get(request.path, usageSchema, request.query);
