import {
  alertDeliverySchema,
  alertWebhookViewSchema,
  type AlertDeliveryStatus,
  type AlertEvent,
} from '@sluice/contract/schemas/alerts';
import { optionSchema } from '@sluice/contract/schemas/option';
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

/** The alert options an administrator changes: cooldown, attempts, first wait. */
export const ALERT_SETTING_KEYS = [
  'AlertCooldownMinutes',
  'AlertWebhookAttempts',
  'AlertRetryBaseSeconds',
] as const;
export type AlertSettingKey = (typeof ALERT_SETTING_KEYS)[number];
export type AlertSettings = Readonly<Record<AlertSettingKey, string>>;

/** GET /api/option/: the alert options' values (an administrator may read them). */
export const getAlertSettings = async (): Promise<AlertSettings> => {
  const options = await api.get('/api/option/', z.array(optionSchema));
  const valueOf = (key: AlertSettingKey) => options.find((option) => option.key === key)?.value ?? '';
  return {
    AlertCooldownMinutes: valueOf('AlertCooldownMinutes'),
    AlertWebhookAttempts: valueOf('AlertWebhookAttempts'),
    AlertRetryBaseSeconds: valueOf('AlertRetryBaseSeconds'),
  };
};

/** PUT /api/option/batch: the alert options at once (the server checks their bounds). */
export const saveAlertSettings = (settings: AlertSettings) =>
  api.send(
    'PUT',
    '/api/option/batch',
    ALERT_SETTING_KEYS.map((key) => ({ key, value: settings[key] })),
  );
