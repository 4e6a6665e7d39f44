import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
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
] as const;

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
        ];
        return csvRecord(values);
      })
      .join('');
    const last = rows.at(-1);
    if (!last || rows.length < batchSize) return;
    before = Number(last.id);
  }
}
