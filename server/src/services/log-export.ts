import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { LogRouting } from '@sluice/contract/schemas/log';
import { CSV_BOM, csvRecord, type CsvValue } from '../lib/csv.js';
import { LOG_COLUMNS, logConditions, toLogRecord, type LogScope } from './log-scope.js';

/** Rows read per query while exporting. */
export const EXPORT_BATCH_SIZE = 1000;

export const LOG_CSV_HEADER = [
  'id',
  'created_at',
  'type',
  'username',
  'token_name',
  'model_name',
  'prompt_tokens',
  'completion_tokens',
  'quota',
  'channel',
  'request_id',
  'elapsed_time',
  'is_stream',
  'content',
  'client_format',
  'routing',
] as const;

/**
 * A row's routing decision in one readable cell (a spreadsheet's reader filters and reads it; the
 * log list answers the JSON): the strategy, `affinity` when the conversation's pin chose the first
 * channel, then each attempt in order, `ch#<channel>/k<key's place> <status>[ <reason>] <ms>ms`,
 * joined by ` → `: `round_robin · affinity: ch#3/k1 401 invalid_api_key 12ms → ch#3/k0 200 310ms`.
 * Empty for a row without one (one-api's rows, errors, top-ups).
 */
export const routingCell = (routing: LogRouting | undefined): string => {
  if (!routing) return '';
  const attempts = routing.attempts
    .map(
      ({ channel, key, status, reason, ms }) =>
        `ch#${channel}/k${key} ${status}${reason ? ` ${reason}` : ''} ${ms}ms`,
    )
    .join(' → ');
  return `${routing.strategy}${routing.affinity ? ' · affinity' : ''}: ${attempts}`;
};

const isoTime = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
};

/**
 * The CSV export of a scope, newest first, as chunks: the header, then one chunk per batch. Batches
 * are read by keyset pagination on id, so memory stays flat however many rows match.
 */
export async function* logCsvChunks(
  db: Kysely<Tables>,
  scope: LogScope,
  batchSize = EXPORT_BATCH_SIZE,
): AsyncGenerator<string, void, undefined> {
  yield CSV_BOM + csvRecord(LOG_CSV_HEADER);
  let before: number | undefined;
  for (;;) {
    let query = db.selectFrom('logs').select(LOG_COLUMNS).where(logConditions(scope));
    if (before !== undefined) query = query.where('id', '<', before);
    const rows = await query.orderBy('id', 'desc').limit(batchSize).execute();
    if (rows.length === 0) return;
    yield rows
      .map((row) => {
        const log = toLogRecord(row);
        const values: CsvValue[] = [
          log.id,
          isoTime(log.created_at),
          log.type,
          log.username,
          log.token_name,
          log.model_name,
          log.prompt_tokens,
          log.completion_tokens,
          log.quota,
          log.channel,
          log.request_id,
          log.elapsed_time,
          log.is_stream,
          log.content,
          log.client_format,
          routingCell(log.routing),
        ];
        return csvRecord(values);
      })
      .join('');
    const last = rows.at(-1);
    if (!last || rows.length < batchSize) return;
    before = Number(last.id);
  }
}
