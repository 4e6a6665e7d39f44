import { RATE_LIMIT_FIELDS } from '@sluice/contract/schemas/limits';
import { QUOTA_ALERT_FIELDS } from '@sluice/contract/schemas/quota-alerts';

// How the relay's index reads its rows: lists, and whether a row still says what it remembers.

type RateLimits = { readonly [field in (typeof RATE_LIMIT_FIELDS)[number]]: number | string | null };
type AlertThresholds = { readonly [field in (typeof QUOTA_ALERT_FIELDS)[number]]: number | string | null };

/** Whether a key's or user's rate limits are as remembered (PostgreSQL answers bigints as text). */
export const sameRateLimits = (row: RateLimits, cached: RateLimits): boolean =>
  RATE_LIMIT_FIELDS.every((field) => Number(row[field] ?? 0) === Number(cached[field] ?? 0));

/** Whether a user's alert thresholds are as remembered (null, the site's, differs from 0, off). */
export const sameAlertThresholds = (row: AlertThresholds, cached: AlertThresholds): boolean =>
  QUOTA_ALERT_FIELDS.every(
    (field) =>
      (row[field] === null) === (cached[field] === null) && Number(row[field]) === Number(cached[field]),
  );

/** A comma-separated list (a channel's groups or models): its distinct items, trimmed. */
export const splitList = (value: string | null): string[] => [
  ...new Set(
    (value ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  ),
];
