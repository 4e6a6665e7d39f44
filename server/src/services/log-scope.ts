import { parseJson } from '@sluice/contract/parse-json';
import {
  logRoutingSchema,
  type ClientFormat,
  type Log,
  type LogFilter,
  type LogRouting,
  type OwnLogFilter,
} from '@sluice/contract/schemas/log';
import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool } from 'kysely';
import { toBool } from '../db/database.js';
import type { LogsTable, Tables } from '../db/tables.js';

/** Which log rows a query covers; every field applies only when non-empty / non-zero. */
export interface LogScope {
  readonly user_id?: number;
  readonly type?: number;
  readonly username?: string;
  readonly token_name?: string;
  readonly model_name?: string;
  readonly start_timestamp?: number;
  readonly end_timestamp?: number;
  readonly channel?: number;
  readonly client_format?: ClientFormat | '';
  /** Lists only (the roll-ups behind the statistics have no request ids). */
  readonly request_id?: string;
}

/** The admin filters as given (a list's request id too). */
export const adminScope = (filter: LogFilter & { readonly request_id?: string }): LogScope => ({
  type: filter.type,
  username: filter.username,
  token_name: filter.token_name,
  model_name: filter.model_name,
  start_timestamp: filter.start_timestamp,
  end_timestamp: filter.end_timestamp,
  channel: filter.channel,
  client_format: filter.client_format,
  request_id: filter.request_id,
});

/** The caller's own rows: user id forced, never a username or channel filter. */
export const ownScope = (
  userId: number,
  filter: OwnLogFilter & { readonly request_id?: string },
): LogScope => ({
  user_id: userId,
  type: filter.type,
  token_name: filter.token_name,
  model_name: filter.model_name,
  start_timestamp: filter.start_timestamp,
  end_timestamp: filter.end_timestamp,
  client_format: filter.client_format,
  request_id: filter.request_id,
});

/**
 * created_at as an expression: the condition still filters, but no plan walks the created_at index
 * over the window and sorts it (the lists read in id order, a window bounded by an id range).
 */
const CREATED_AT_VALUE = sql<number>`(created_at + 0)`;

/** The WHERE clause of a scope; `inIdOrder` keeps the time window off the created_at index. */
export const logConditions =
  (scope: LogScope, inIdOrder = false) =>
  (eb: ExpressionBuilder<Tables, 'logs'>): Expression<SqlBool> => {
    const created = inIdOrder ? CREATED_AT_VALUE : eb.ref('created_at');
    const conditions: Expression<SqlBool>[] = [];
    if (scope.user_id) conditions.push(eb('user_id', '=', scope.user_id));
    if (scope.type) conditions.push(eb('type', '=', scope.type));
    if (scope.username) conditions.push(eb('username', '=', scope.username));
    if (scope.token_name) conditions.push(eb('token_name', '=', scope.token_name));
    if (scope.model_name) conditions.push(eb('model_name', '=', scope.model_name));
    if (scope.start_timestamp) conditions.push(eb(created, '>=', scope.start_timestamp));
    if (scope.end_timestamp) conditions.push(eb(created, '<=', scope.end_timestamp));
    if (scope.channel) conditions.push(eb('channel_id', '=', scope.channel));
    if (scope.client_format) conditions.push(eb('client_format', '=', scope.client_format));
    if (scope.request_id) conditions.push(eb('request_id', '=', scope.request_id));
    return eb.and(conditions);
  };

/** The columns of the wire record (not system_prompt_reset). */
export const LOG_COLUMNS = [
  'id',
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'channel_id',
  'request_id',
  'elapsed_time',
  'is_stream',
  'client_format',
  'routing',
] as const;

export type LogRow = Pick<Selectable<LogsTable>, (typeof LOG_COLUMNS)[number]>;

export const toLogRecord = (row: LogRow): Log => ({
  id: Number(row.id),
  user_id: Number(row.user_id),
  created_at: Number(row.created_at),
  type: Number(row.type),
  content: row.content ?? '',
  username: row.username ?? '',
  token_name: row.token_name ?? '',
  model_name: row.model_name ?? '',
  quota: Number(row.quota),
  prompt_tokens: Number(row.prompt_tokens),
  completion_tokens: Number(row.completion_tokens),
  channel: Number(row.channel_id),
  request_id: row.request_id ?? '',
  elapsed_time: Number(row.elapsed_time),
  is_stream: toBool(row.is_stream),
  client_format: row.client_format ?? '',
  ...routingOf(row.routing),
});

/** The row's routing decision, when it has one that reads (a row without answers none). */
const routingOf = (text: string | null): { routing?: LogRouting } => {
  if (!text) return {};
  const parsed = logRoutingSchema.safeParse(parseJson(text));
  return parsed.success ? { routing: parsed.data } : {};
};
