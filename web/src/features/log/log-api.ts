import { logSchema, logStatSchema, type LogFilter } from '@sluice/contract/schemas/log';
import { z } from 'zod';
import { api, apiDownload, type Query } from '../../lib/api-client.js';

/**
 * The filters of the logs screen, as the admin routes read them (epoch seconds, 0 = not set; channel id,
 * 0 = any); `username` and `channel` are sent for admins only (spec §6).
 */
export type LogFilters = Readonly<LogFilter>;

/** The query of a filter set: admins read /api/log/*, everyone else /api/log/self/*. */
export const logQuery = (filters: LogFilters, admin: boolean): Query => ({
  type: filters.type,
  token_name: filters.token_name.trim(),
  model_name: filters.model_name.trim(),
  start_timestamp: filters.start_timestamp,
  end_timestamp: filters.end_timestamp,
  // Sent only when set (a server without the filter, one-api's, then reads the same query as before).
  ...(filters.client_format ? { client_format: filters.client_format } : {}),
  ...(admin ? { username: filters.username.trim(), channel: filters.channel || '' } : {}),
});

const base = (admin: boolean) => (admin ? '/api/log' : '/api/log/self');

export const listLogs = (filters: LogFilters, admin: boolean, page: number) =>
  api.get(`${base(admin)}/`, z.array(logSchema), { ...logQuery(filters, admin), p: page });

export const logStat = (filters: LogFilters, admin: boolean) =>
  api.get(`${base(admin)}/stat`, logStatSchema, logQuery(filters, admin));

/** CSV of the filtered rows (GET /api/log/export or /api/log/self/export). */
export const exportLogs = (filters: LogFilters, admin: boolean) =>
  apiDownload(`${base(admin)}/export`, logQuery(filters, admin), 'logs.csv');

/** DELETE /api/log/?target_timestamp=: data is the number of rows deleted. */
export const deleteLogsBefore = (seconds: number) =>
  api.del('/api/log/', z.number(), { target_timestamp: seconds });
