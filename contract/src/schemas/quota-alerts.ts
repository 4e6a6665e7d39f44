import { z } from 'zod';
import { MAX_LIMIT_VALUE } from './limits.js';

/**
 * A user's own quota alerts (Sluice's own columns on users, migration 0014): the threshold below
 * which their account's quota (`quota_alert_threshold`) or a limited key's remaining quota
 * (`token_alert_threshold`) raises `user.quota_low` / `token.quota_low`, in quota units.
 * null: the site's QuotaRemindThreshold; 0: off (no alert about it at all); more: the user's own.
 */
export const QUOTA_ALERT_FIELDS = ['quota_alert_threshold', 'token_alert_threshold'] as const;
export type QuotaAlertField = (typeof QUOTA_ALERT_FIELDS)[number];

export type QuotaAlertValues = Readonly<Record<QuotaAlertField, number | null>>;

const thresholdValue = (name: string) =>
  z
    .number({ error: `${name} must be a whole number of quota units, 0 (off) or null (the site's)` })
    .int(`${name} must be a whole number of quota units`)
    .min(0, `${name} cannot be negative`)
    .max(MAX_LIMIT_VALUE, `${name} is too large`)
    .nullable();

/** The fields of PUT /api/user/self that set them: each optional (absent: unchanged). */
export const quotaAlertFieldsSchema = Object.fromEntries(
  QUOTA_ALERT_FIELDS.map((field) => [field, thresholdValue(field).optional()]),
) as Record<QuotaAlertField, z.ZodOptional<ReturnType<typeof thresholdValue>>>;

/** The fields of a user record as the server answers them (absent: the site's). */
export const quotaAlertRecordSchema = Object.fromEntries(
  QUOTA_ALERT_FIELDS.map((field) => [field, z.number().nullable().default(null)]),
) as Record<QuotaAlertField, z.ZodDefault<z.ZodNullable<z.ZodNumber>>>;

/**
 * The threshold that applies: the user's own, else the site's; undefined when the user turned the
 * alert off. A quota at or below 0 is always below a threshold that applies (it ran out).
 */
export const alertThresholdOf = (
  own: number | string | null | undefined,
  site: number,
): number | undefined => {
  if (own === null || own === undefined) return site;
  const value = Number(own);
  return value > 0 ? value : undefined;
};

/** True when what remains is below the threshold that applies (never when the alert is off). */
export const isBelowAlertThreshold = (remaining: number, threshold: number | undefined): boolean =>
  threshold !== undefined && (remaining < threshold || remaining <= 0);
