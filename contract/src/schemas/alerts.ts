import { z } from 'zod';
import { pageQuerySchema } from './common.js';

/**
 * What an alert is about. `test` is the console's "send test"; the others come from the server:
 * a channel disabled or re-enabled automatically, a channel's breaker opened (cooled down) or
 * closed by a probe's success (recovered), a user's or a key's quota below QuotaRemindThreshold,
 * a budget window at BudgetWarningPercent.
 */
export const ALERT_EVENTS = [
  'channel.disabled',
  'channel.enabled',
  'channel.cooled_down',
  'channel.recovered',
  'budget.threshold',
  'user.quota_low',
  'token.quota_low',
  'test',
] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

/** Where a delivery stands: being tried, delivered (a 2xx answer), or failed after every attempt. */
export const ALERT_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type AlertDeliveryStatus = (typeof ALERT_DELIVERY_STATUSES)[number];

/** The headers of a webhook delivery (docs/alerts.md describes how a receiver checks them). */
export const ALERT_SIGNATURE_HEADER = 'x-sluice-signature';
export const ALERT_TIMESTAMP_HEADER = 'x-sluice-timestamp';
export const ALERT_EVENT_HEADER = 'x-sluice-event';
export const ALERT_DELIVERY_HEADER = 'x-sluice-delivery';

export const MAX_ALERT_WEBHOOKS = 20;

/** One webhook of the AlertWebhooks option. */
export const alertWebhookSchema = z.strictObject({
  /** How the console and the delivery log name it. */
  name: z.string().trim().min(1).max(64),
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .max(512, 'must be at most 512 characters'),
  /** The HMAC-SHA256 key of the signature header. */
  secret: z.string().min(16, 'must be at least 16 characters').max(256),
  /** The events it receives; absent or empty: every event. */
  events: z.array(z.enum(ALERT_EVENTS)).optional(),
});
export type AlertWebhook = z.infer<typeof alertWebhookSchema>;

/** The AlertWebhooks option: a JSON list of webhooks with distinct names (a secret option: root's). */
export const alertWebhooksSchema = z
  .array(alertWebhookSchema)
  .max(MAX_ALERT_WEBHOOKS)
  .refine((hooks) => new Set(hooks.map((hook) => hook.name)).size === hooks.length, {
    error: 'webhook names must be distinct',
  });

/** Reads the AlertWebhooks text: the list, or why it is refused (naming the entry and field). */
export const readAlertWebhooks = (
  text: string,
): { ok: true; hooks: AlertWebhook[] } | { ok: false; message: string } => {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '[]' : text);
  } catch {
    return { ok: false, message: 'AlertWebhooks is not valid JSON' };
  }
  const parsed = alertWebhooksSchema.safeParse(value);
  if (parsed.success) return { ok: true, hooks: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` (${issue.path.join('.')})` : '';
  return { ok: false, message: `AlertWebhooks${where}: ${issue?.message ?? 'invalid'}` };
};

/** A configured webhook as /api/alert/webhooks shows it: never its secret. */
export const alertWebhookViewSchema = z.object({
  name: z.string(),
  url: z.string(),
  events: z.array(z.string()),
});
export type AlertWebhookView = z.infer<typeof alertWebhookViewSchema>;

/** One row of the delivery log. */
export const alertDeliverySchema = z.object({
  id: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
  event: z.string(),
  object_id: z.string(),
  webhook: z.string(),
  url: z.string(),
  status: z.string(),
  attempts: z.number(),
  response_code: z.number(),
  last_error: z.string(),
  body: z.string(),
});
export type AlertDelivery = z.infer<typeof alertDeliverySchema>;

const choice = <T extends readonly [string, ...string[]]>(choices: T) =>
  z
    .string()
    .trim()
    .pipe(z.enum(['', ...choices], { error: `must be one of ${choices.join(', ')}` }))
    .optional()
    .default('');

/** GET /api/alert/deliveries: a page, optionally one event, status or webhook. */
export const alertDeliveryQuerySchema = z
  .object({
    event: choice(ALERT_EVENTS),
    status: choice(ALERT_DELIVERY_STATUSES),
    webhook: z.string().trim().max(64).optional().default(''),
  })
  .extend(pageQuerySchema.shape);
export type AlertDeliveryQuery = z.infer<typeof alertDeliveryQuerySchema>;

/** POST /api/alert/test: the configured webhook to send a test event to. */
export const alertTestSchema = z.object({ name: z.string().trim().min(1).max(64) });
