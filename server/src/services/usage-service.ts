import {
  USAGE_MAX_DAYS,
  type DashboardRow,
  type OwnUsageQuery,
  type Usage,
  type UsageDay,
  type UsageModel,
  type UsageQuery,
} from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql } from 'kysely';
import { bucketOf, bucketStart } from '../db/day-bucket.js';
import { sqlNumber } from '../db/sql-number.js';
import { invalidParameter } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { logConditions, type LogScope } from './log-scope.js';
import type { ServiceDeps } from './service-deps.js';

const DAY = 86_400;
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

const totals = {
  requests: sql<unknown>`COUNT(*)`,
  prompt_tokens: sql<unknown>`COALESCE(SUM(prompt_tokens), 0)`,
  completion_tokens: sql<unknown>`COALESCE(SUM(completion_tokens), 0)`,
  quota: sql<unknown>`COALESCE(SUM(quota), 0)`,
};

interface TotalsRow {
  requests: unknown;
  prompt_tokens: unknown;
  completion_tokens: unknown;
  quota: unknown;
}

const readTotals = (row: TotalsRow) => ({
  requests: sqlNumber(row.requests),
  prompt_tokens: sqlNumber(row.prompt_tokens),
  completion_tokens: sqlNumber(row.completion_tokens),
  quota: sqlNumber(row.quota),
});

const addTotals = <T extends ReturnType<typeof readTotals>>(
  into: T,
  more: ReturnType<typeof readTotals>,
): T => {
  into.requests += more.requests;
  into.prompt_tokens += more.prompt_tokens;
  into.completion_tokens += more.completion_tokens;
  into.quota += more.quota;
  return into;
};

/**
 * Consumption for charts, aggregated in SQL over type-2 rows of the logs' database; always read from
 * `deps.logReadDb` (off the relay's thread on SQLite).
 */
export const createUsageService = (deps: ServiceDeps) => {
  const db = deps.logReadDb;

  const consumeRows = (scope: LogScope, range: Range) =>
    db.selectFrom('logs').where(
      logConditions({
        ...scope,
        type: LOG_TYPE.consume,
        start_timestamp: range.start,
        end_timestamp: range.end,
      }),
    );

  /** One entry per day of the range (zeros included), oldest first. */
  const byDay = async (scope: LogScope, range: Range): Promise<UsageDay[]> => {
    const day = bucketStart('created_at', range.shift, DAY);
    const rows = await consumeRows(scope, range)
      .select([
        day.as('day'),
        totals.requests.as('requests'),
        totals.prompt_tokens.as('prompt_tokens'),
        totals.completion_tokens.as('completion_tokens'),
        totals.quota.as('quota'),
      ])
      .groupBy(day)
      .execute();
    const found = new Map(rows.map((row) => [sqlNumber(row.day), readTotals(row)]));
    const days: UsageDay[] = [];
    const last = bucketOf(range.end, range.shift, DAY);
    for (let bucket = bucketOf(range.start, range.shift, DAY); bucket <= last; bucket += DAY) {
      const zero = { requests: 0, prompt_tokens: 0, completion_tokens: 0, quota: 0 };
      days.push({ day: dayName(bucket), ...(found.get(bucket) ?? zero) });
    }
    return days;
  };

  /** One entry per model, the most quota first. */
  const byModel = async (scope: LogScope, range: Range): Promise<UsageModel[]> => {
    const rows = await consumeRows(scope, range)
      .select([
        'model_name',
        totals.requests.as('requests'),
        totals.prompt_tokens.as('prompt_tokens'),
        totals.completion_tokens.as('completion_tokens'),
        totals.quota.as('quota'),
      ])
      .groupBy('model_name')
      .execute();
    const models = new Map<string, UsageModel>();
    for (const row of rows) {
      const name = row.model_name ?? '';
      const seen = models.get(name);
      if (seen) addTotals(seen, readTotals(row));
      else models.set(name, { model_name: name, ...readTotals(row) });
    }
    return [...models.values()].sort(
      (a, b) => b.quota - a.quota || b.requests - a.requests || a.model_name.localeCompare(b.model_name),
    );
  };

  const usage = async (scope: LogScope, query: OwnUsageQuery, now: number): Promise<Usage> => {
    const range = usageRange(query, now);
    const [days, models] = await Promise.all([byDay(scope, range), byModel(scope, range)]);
    return { days, models };
  };

  return {
    usage: (query: UsageQuery, now = nowSeconds()) =>
      usage({ username: query.username, channel: query.channel }, query, now),
    usageOwn: (userId: number, query: OwnUsageQuery, now = nowSeconds()) =>
      usage({ user_id: userId }, query, now),

    /**
     * one-api's GET /api/user/dashboard: the caller's consumption from midnight (UTC) seven days ago
     * to the end of today, per day and model, ordered by day then model.
     */
    dashboard: async (userId: number, now = nowSeconds()): Promise<DashboardRow[]> => {
      const today = bucketOf(now, 0, DAY);
      const range = { start: today - 7 * DAY, end: today + DAY - 1, shift: 0 };
      const day = bucketStart('created_at', 0, DAY);
      const rows = await consumeRows({ user_id: userId }, range)
        .select([
          day.as('day'),
          'model_name',
          totals.requests.as('requests'),
          totals.prompt_tokens.as('prompt_tokens'),
          totals.completion_tokens.as('completion_tokens'),
          totals.quota.as('quota'),
        ])
        .groupBy([day, 'model_name'])
        .execute();
      return rows
        .map((row) => {
          const sums = readTotals(row);
          return {
            Day: dayName(sqlNumber(row.day)),
            ModelName: row.model_name ?? '',
            RequestCount: sums.requests,
            Quota: sums.quota,
            PromptTokens: sums.prompt_tokens,
            CompletionTokens: sums.completion_tokens,
          };
        })
        .sort((a, b) => a.Day.localeCompare(b.Day) || a.ModelName.localeCompare(b.ModelName));
    },
  };
};

export type UsageService = ReturnType<typeof createUsageService>;
