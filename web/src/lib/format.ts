import { useStoredValue } from './storage.js';
import { DEFAULT_QUOTA_PER_UNIT } from './status.js';

/** Spec §9 formatting: timestamps, quota, usernames, group badges. */

const pad = (value: number) => String(value).padStart(2, '0');

/** Epoch seconds as local `YYYY-MM-DD HH:mm:ss`. */
export const formatTimestamp = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
};

/** `value` with `digits` decimals and a comma between thousands (`1,234,567.89`). */
export const groupDigits = (value: number, digits: number): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * Abbreviated with one decimal: from 10 thousand k, from 1 million M, from 1 billion B; thousands
 * separated beyond that (root's 500,000.0B).
 */
export const formatNumber = (value: number): string => {
  if (value >= 1e9) return `${groupDigits(value / 1e9, 1)}B`;
  if (value >= 1e6) return `${groupDigits(value / 1e6, 1)}M`;
  if (value >= 1e4) return `${groupDigits(value / 1e3, 1)}k`;
  return String(value);
};

export interface QuotaDisplay {
  readonly displayInCurrency: boolean;
  readonly quotaPerUnit: number;
}

/** A quota as currency (QuotaPerUnit quota = $1) with `digits` decimals and thousands separated, or abbreviated. */
export const formatQuota = (quota: number, display: QuotaDisplay, digits = 2): string => {
  if (!display.displayInCurrency) return formatNumber(quota);
  const perUnit = display.quotaPerUnit > 0 ? display.quotaPerUnit : DEFAULT_QUOTA_PER_UNIT;
  const amount = groupDigits(Math.abs(quota / perUnit), digits);
  return quota < 0 ? `-$${amount}` : `$${amount}`;
};

/** The quota formatter of the stored display settings (re-renders when the status changes). */
export const useQuotaFormatter = (): ((quota: number, digits?: number) => string) => {
  const displayInCurrency = useStoredValue('display_in_currency') ?? true;
  const quotaPerUnit = useStoredValue('quota_per_unit') ?? DEFAULT_QUOTA_PER_UNIT;
  return (quota, digits) => formatQuota(quota, { displayInCurrency, quotaPerUnit }, digits);
};

export const USERNAME_DISPLAY_MAX = 15;

/** Truncates to `max` characters with an ellipsis. */
export const truncate = (value: string, max = USERNAME_DISPLAY_MAX): string =>
  [...value].length > max ? `${[...value].slice(0, max).join('')}...` : value;

/** Group badge colours: vip and pro yellow; svip and premium red; others neutral. */
export const GROUP_COLORS: Readonly<Record<string, string>> = {
  vip: 'yellow',
  pro: 'yellow',
  svip: 'red',
  premium: 'red',
};

export const groupColor = (group: string): string => GROUP_COLORS[group] ?? 'gray';

/** A comma list of groups; empty means `default`. */
export const groupsOf = (value: string): string[] => {
  const groups = value
    .split(',')
    .map((group) => group.trim())
    .filter((group) => group !== '');
  return groups.length > 0 ? groups : ['default'];
};
