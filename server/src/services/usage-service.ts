import {
  USAGE_MAX_DAYS,
  type DashboardRow,
  type OwnUsageQuery,
  type Usage,
  type UsageDay,
  type UsageModel,
  type UsageQuery,
} from '@sluice/contract/schemas/log';
import { bucketOf } from '../db/day-bucket.js';
import { DAY } from '../db/log-rollup-tables.js';
import { invalidParameter } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { readSums, type SumFilters, type Sums } from './log-rollup-read.js';
import type { ServiceDeps } from './service-deps.js';

/** Day buckets of a default range: today and the six days before. */
const DEFAULT_DAYS = 7;

interface Range {
  readonly start: number;
  readonly end: number;
  /** Seconds added to a Unix time to get the caller's wall-clock time. */
  readonly shift: number;
}

const dayName = (bucket: number): string => new Date(bucket * 1000).toISOString().slice(0, 10);

/** A missing end is now; a missing start is the caller's midnight six days before the end. */
export const usageRange = (query: OwnUsageQuery, now: number): Range => {
  const shift = query.tz_offset * 60;
  const end = query.end_timestamp || now;
  const start = query.start_timestamp || bucketOf(end, shift, DAY) - (DEFAULT_DAYS - 1) * DAY - shift;
  if (start > end) throw invalidParameter('start_timestamp must not be after end_timestamp');
  if (end - start > USAGE_MAX_DAYS * DAY)
    throw invalidParameter(`the time range must be at most ${USAGE_MAX_DAYS} days`);
  return { start, end, shift };
};

const zero = () => ({ requests: 0, prompt_tokens: 0, completion_tokens: 0, quota: 0 });

const addTotals = <T extends Sums>(into: T, more: Sums): T => {
  into.requests += more.requests;
  into.prompt_tokens += more.prompt_tokens;
  into.completion_tokens += more.completion_tokens;
  into.quota += more.quota;
  return into;
};

const totalsOf = (row: Sums): Sums => addTotals(zero(), row);

/**
 * Consumption for charts (type-2 rows), from the roll-ups of the logs' database (one statement per
 * call, its cost the buckets', not the rows'); always read from `deps.logReadDb` (off the relay's
 * thread on SQLite).
 */
export const createUsageService = (deps: ServiceDeps) => {
  const db = deps.logReadDb;

  /** Per day of the range (zeros included, oldest first) and per model (the most quota first). */
  const usage = async (filters: SumFilters, query: OwnUsageQuery, now: number): Promise<Usage> => {
    const range = usageRange(query, now);
    const rows = await readSums(
      db,
      filters,
      { from: range.start, to: range.end + 1 },
      { dayShift: range.shift, model: true },
    );
    const byDay = new Map<number, Sums>();
    const models = new Map<string, UsageModel>();
    for (const row of rows) {
      const day = byDay.get(row.day);
      if (day) addTotals(day, row);
      else byDay.set(row.day, totalsOf(row));
      const model = models.get(row.model_name);
      if (model) addTotals(model, row);
      else models.set(row.model_name, { model_name: row.model_name, ...totalsOf(row) });
    }
    const days: UsageDay[] = [];
    const last = bucketOf(range.end, range.shift, DAY);
    for (let bucket = bucketOf(range.start, range.shift, DAY); bucket <= last; bucket += DAY)
      days.push({ day: dayName(bucket), ...(byDay.get(bucket) ?? zero()) });
    const ranked = [...models.values()].sort(
      (a, b) => b.quota - a.quota || b.requests - a.requests || a.model_name.localeCompare(b.model_name),
    );
    return { days, models: ranked };
  };

  return {
    usage: (query: UsageQuery, now = nowSeconds()) =>
      usage({ username: query.username, channel_id: query.channel }, query, now),
    usageOwn: (userId: number, query: OwnUsageQuery, now = nowSeconds()) =>
      usage({ user_id: userId }, query, now),

    /**
     * one-api's GET /api/user/dashboard: the caller's consumption from midnight (UTC) seven days ago
     * to the end of today, per day and model, ordered by day then model.
     */
    dashboard: async (userId: number, now = nowSeconds()): Promise<DashboardRow[]> => {
      const today = bucketOf(now, 0, DAY);
      const rows = await readSums(
        db,
        { user_id: userId },
        { from: today - 7 * DAY, to: today + DAY },
        { dayShift: 0, model: true },
      );
      return rows
        .map((row) => ({
          Day: dayName(row.day),
          ModelName: row.model_name,
          RequestCount: row.requests,
          Quota: row.quota,
          PromptTokens: row.prompt_tokens,
          CompletionTokens: row.completion_tokens,
        }))
        .sort((a, b) => a.Day.localeCompare(b.Day) || a.ModelName.localeCompare(b.ModelName));
    },
  };
};

export type UsageService = ReturnType<typeof createUsageService>;
