import { USAGE_MAX_DAYS, type Usage, type UsageDay } from '@sluice/contract/schemas/log';
import type { Query } from '../../lib/api-client.js';

/** The dashboard's choices: a range and, for admins, whose usage (the caller, everyone, a user, a channel). */
export type RangePreset = '7' | '30' | 'custom';
export type Scope = 'self' | 'all' | 'user' | 'channel';

export interface DashboardFilters {
  readonly preset: RangePreset;
  /** Custom range, `YYYY-MM-DD` local dates (inclusive). */
  readonly startDate: string;
  readonly endDate: string;
  readonly scope: Scope;
  readonly username: string;
  readonly channel: number;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** A date as a local `YYYY-MM-DD`. */
export const localDate = (date: Date): string =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/** The local midnight `days` calendar days before `date` (safe across daylight-saving changes). */
const daysBefore = (date: Date, days: number): Date =>
  new Date(date.getFullYear(), date.getMonth(), date.getDate() - days);

/** Minutes east of UTC, as the usage endpoints take it (the browser's zone). */
export const tzOffsetMinutes = (date: Date = new Date()): number => -date.getTimezoneOffset();

export const defaultFilters = (now: Date = new Date()): DashboardFilters => ({
  preset: '7',
  startDate: localDate(daysBefore(now, 6)),
  endDate: localDate(now),
  scope: 'self',
  username: '',
  channel: 0,
});

const parseLocalDate = (text: string): Date | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(date.getTime()) ? undefined : date;
};

export interface UsageRange {
  readonly start: number;
  readonly end: number;
}

export type RangeError = 'dashboard.range.invalid' | 'dashboard.range.tooLong';

/**
 * The range in epoch seconds: the last 7 or 30 days (from the local midnight that many days back,
 * today included, to now), or whole custom days. An error key when the custom days do not work.
 */
export const rangeOf = (filters: DashboardFilters, now: Date = new Date()): UsageRange | RangeError => {
  if (filters.preset !== 'custom') {
    const days = Number(filters.preset);
    const start = daysBefore(now, days - 1);
    return { start: Math.floor(start.getTime() / 1000), end: Math.floor(now.getTime() / 1000) };
  }
  const first = parseLocalDate(filters.startDate);
  const last = parseLocalDate(filters.endDate);
  if (!first || !last || first > last) return 'dashboard.range.invalid';
  const end = new Date(last.getFullYear(), last.getMonth(), last.getDate() + 1).getTime() / 1000 - 1;
  const start = first.getTime() / 1000;
  if (end - start > USAGE_MAX_DAYS * 86_400) return 'dashboard.range.tooLong';
  return { start, end };
};

export interface UsageRequest {
  readonly path: '/api/log/self/usage' | '/api/log/usage';
  readonly query: Query;
}

/**
 * The call for the filters: /api/log/self/usage for the caller (every user), /api/log/usage for an
 * admin's view of everyone, one username or one channel. Undefined while a user or channel is
 * chosen but not filled in.
 */
export const usageRequest = (
  filters: DashboardFilters,
  range: UsageRange,
  admin: boolean,
  tzOffset: number = tzOffsetMinutes(),
): UsageRequest | undefined => {
  const base = { start_timestamp: range.start, end_timestamp: range.end, tz_offset: tzOffset };
  if (!admin || filters.scope === 'self') return { path: '/api/log/self/usage', query: base };
  if (filters.scope === 'all') return { path: '/api/log/usage', query: base };
  if (filters.scope === 'user') {
    const username = filters.username.trim();
    return username === '' ? undefined : { path: '/api/log/usage', query: { ...base, username } };
  }
  return filters.channel > 0
    ? { path: '/api/log/usage', query: { ...base, channel: filters.channel } }
    : undefined;
};

/** The totals of a usage day, over the whole range. */
export type UsageTotals = Readonly<Omit<UsageDay, 'day'>>;

/** Sums over the days. */
export const totalsOf = (days: readonly UsageDay[]): UsageTotals =>
  days.reduce(
    (sum, day) => ({
      requests: sum.requests + day.requests,
      prompt_tokens: sum.prompt_tokens + day.prompt_tokens,
      completion_tokens: sum.completion_tokens + day.completion_tokens,
      quota: sum.quota + day.quota,
    }),
    { requests: 0, prompt_tokens: 0, completion_tokens: 0, quota: 0 },
  );

/** No request in the range. */
export const isEmptyUsage = (usage: Usage): boolean =>
  usage.models.length === 0 && usage.days.every((day) => day.requests === 0);

/**
 * The fewest decimals (2, 4 or 6) with which `formatQuota` tells `value` from zero: small
 * consumption in currency reads $0.000045 rather than $0.00.
 */
export const quotaDigits = (formatQuota: (quota: number, digits?: number) => string, value: number): number =>
  [2, 4].find((digits) => value <= 0 || formatQuota(value, digits) !== formatQuota(0, digits)) ?? 6;

/**
 * The ticks of a value axis from 0 to at least `max`: about `count` steps of 1, 2, 2.5 or 5 times a
 * power of ten (whole steps for counts), so no two ticks are equal.
 */
export const niceTicks = (max: number, integer: boolean, count = 4): number[] => {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  const raw = top / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const nice = [1, 2, 2.5, 5, 10].map((multiple) => multiple * magnitude).find((step) => step >= raw) ?? raw;
  const step = integer ? Math.max(1, Math.ceil(nice)) : nice;
  const steps = Math.ceil(top / step - 1e-9);
  return Array.from({ length: steps + 1 }, (_, index) => Number((index * step).toPrecision(12)));
};

/**
 * The fewest decimals (from `from`, at most 8) that give every tick a label of its own: two decimals
 * show $0.0035 and $0.0070 both as $0.00.
 */
export const distinctDigits = (
  ticks: readonly number[],
  format: (value: number, digits: number) => string,
  from = 2,
): number => {
  for (let digits = from; digits < 8; digits += 1)
    if (new Set(ticks.map((tick) => format(tick, digits))).size === ticks.length) return digits;
  return 8;
};
