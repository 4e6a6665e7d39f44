import type { DashboardRow, LogStat, Usage } from '@sluice/contract/schemas/log';
import { LOG_TYPE } from '@sluice/contract/statuses';
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import { bucketOf, bucketStart } from '../db/day-bucket.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';

/**
 * What the console's log reads should answer, computed the plain way (one-api's): aggregates and
 * pages straight over the raw log rows. The suites compare Sluice's answers, served by roll-ups and
 * id ranges, with these.
 */
export interface TruthFilters {
  readonly user_id?: number;
  readonly type?: number;
  readonly username?: string;
  readonly token_name?: string;
  readonly model_name?: string;
  readonly channel?: number;
  readonly client_format?: string;
  /** Inclusive, 0 or missing: unbounded. */
  readonly start?: number;
  readonly end?: number;
}

const DAY = 86_400;

const where =
  (filters: TruthFilters) =>
  (eb: ExpressionBuilder<Tables, 'logs'>): Expression<SqlBool> =>
    eb.and([
      ...(filters.user_id ? [eb('user_id', '=', filters.user_id)] : []),
      ...(filters.type ? [eb('type', '=', filters.type)] : []),
      ...(filters.username ? [eb('username', '=', filters.username)] : []),
      ...(filters.token_name ? [eb('token_name', '=', filters.token_name)] : []),
      ...(filters.model_name ? [eb('model_name', '=', filters.model_name)] : []),
      ...(filters.channel ? [eb('channel_id', '=', filters.channel)] : []),
      ...(filters.client_format ? [eb('client_format', '=', filters.client_format)] : []),
      ...(filters.start ? [eb('created_at', '>=', filters.start)] : []),
      ...(filters.end ? [eb('created_at', '<=', filters.end)] : []),
    ]);

const sums = [
  sql<number>`COUNT(*)`.as('requests'),
  sql<number>`COALESCE(SUM(prompt_tokens), 0)`.as('prompt_tokens'),
  sql<number>`COALESCE(SUM(completion_tokens), 0)`.as('completion_tokens'),
  sql<number>`COALESCE(SUM(quota), 0)`.as('quota'),
];

export const statTruth = async (db: Kysely<Tables>, filters: TruthFilters): Promise<LogStat> => {
  const row = await db
    .selectFrom('logs')
    .select(sums)
    .where(where({ ...filters, type: LOG_TYPE.consume }))
    .executeTakeFirstOrThrow();
  return {
    quota: sqlNumber(row.quota),
    token: sqlNumber(row.prompt_tokens) + sqlNumber(row.completion_tokens),
  };
};

const totals = (row: {
  requests: unknown;
  prompt_tokens: unknown;
  completion_tokens: unknown;
  quota: unknown;
}) => ({
  requests: sqlNumber(row.requests),
  prompt_tokens: sqlNumber(row.prompt_tokens),
  completion_tokens: sqlNumber(row.completion_tokens),
  quota: sqlNumber(row.quota),
});

const dayName = (bucket: number) => new Date(bucket * 1000).toISOString().slice(0, 10);

/** Per caller's day (zeros included) and per model (most quota first), over `[start, end]`. */
export const usageTruth = async (
  db: Kysely<Tables>,
  filters: TruthFilters & { start: number; end: number },
  tzMinutes: number,
): Promise<Usage> => {
  const shift = tzMinutes * 60;
  const day = bucketStart('created_at', shift, DAY);
  const scoped = () => db.selectFrom('logs').where(where({ ...filters, type: LOG_TYPE.consume }));
  const perDay = await scoped()
    .select([day.as('day'), ...sums])
    .groupBy(day)
    .execute();
  const perModel = await scoped()
    .select([sql<string>`COALESCE(model_name, '')`.as('model_name'), ...sums])
    .groupBy(sql`COALESCE(model_name, '')`)
    .execute();
  const found = new Map(perDay.map((row) => [sqlNumber(row.day), totals(row)]));
  const days = [];
  for (
    let bucket = bucketOf(filters.start, shift, DAY);
    bucket <= bucketOf(filters.end, shift, DAY);
    bucket += DAY
  )
    days.push({
      day: dayName(bucket),
      ...(found.get(bucket) ?? { requests: 0, prompt_tokens: 0, completion_tokens: 0, quota: 0 }),
    });
  const models = perModel
    .map((row) => ({ model_name: String(row.model_name), ...totals(row) }))
    .sort((a, b) => b.quota - a.quota || b.requests - a.requests || a.model_name.localeCompare(b.model_name));
  return { days, models };
};

/** one-api's dashboard: the user's rows from UTC midnight 7 days ago to the end of today. */
export const dashboardTruth = async (
  db: Kysely<Tables>,
  userId: number,
  now: number,
): Promise<DashboardRow[]> => {
  const today = bucketOf(now, 0, DAY);
  const day = bucketStart('created_at', 0, DAY);
  const rows = await db
    .selectFrom('logs')
    .select([day.as('day'), sql<string>`COALESCE(model_name, '')`.as('model_name'), ...sums])
    .where(where({ user_id: userId, type: LOG_TYPE.consume, start: today - 7 * DAY, end: today + DAY - 1 }))
    .groupBy([day, sql`COALESCE(model_name, '')`])
    .execute();
  return rows
    .map((row) => ({
      Day: dayName(sqlNumber(row.day)),
      ModelName: String(row.model_name),
      RequestCount: sqlNumber(row.requests),
      Quota: sqlNumber(row.quota),
      PromptTokens: sqlNumber(row.prompt_tokens),
      CompletionTokens: sqlNumber(row.completion_tokens),
    }))
    .sort((a, b) => a.Day.localeCompare(b.Day) || a.ModelName.localeCompare(b.ModelName));
};

/** The ids of page `page` (10 rows, newest id first). */
export const listTruth = async (db: Kysely<Tables>, filters: TruthFilters, page: number): Promise<number[]> =>
  (
    await db
      .selectFrom('logs')
      .select('id')
      .where(where(filters))
      .orderBy('id', 'desc')
      .limit(10)
      .offset(page * 10)
      .execute()
  ).map((row) => Number(row.id));
