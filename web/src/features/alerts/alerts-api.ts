import {
  alertDeliverySchema,
  alertWebhookViewSchema,
  type AlertDeliveryStatus,
  type AlertEvent,
} from '@sluice/contract/schemas/alerts';
import { z } from 'zod';
import { api, apiGetPage } from '../../lib/api-client.js';

/** The filters of the delivery log ('' = any). */
export interface DeliveryFilters {
  readonly event: AlertEvent | '';
  readonly status: AlertDeliveryStatus | '';
}

/** GET /api/alert/webhooks: the configured webhooks (names, URLs' origins, events; never a secret). */
export const listWebhooks = () => api.get('/api/alert/webhooks', z.array(alertWebhookViewSchema));

/** GET /api/alert/deliveries: one page of the delivery log, newest first, with the total. */
export const listDeliveries = (filters: DeliveryFilters, page: number, size: number) =>
  apiGetPage('/api/alert/deliveries', alertDeliverySchema, { ...filters, p: page, size });

/** POST /api/alert/test: a test event to one webhook (one attempt); the delivery's row. */
export const sendTest = (name: string) => api.post('/api/alert/test', { name }, alertDeliverySchema);

/** PUT /api/option/ AlertWebhooks (root's): replaces the whole list; the server checks its shape. */
export const saveWebhooks = (value: string) =>
  api.send('PUT', '/api/option/', { key: 'AlertWebhooks', value });
