import type {
  Log,
  LogFilter,
  LogListQuery,
  LogStat,
  OwnLogFilter,
  OwnLogListQuery,
} from '@sluice/contract/schemas/log';
import { MAX_RECENT_ITEMS } from '@sluice/contract/statuses';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { prefixMatch } from '../db/prefix-match.js';
import type { Tables } from '../db/tables.js';
import { businessError } from '../lib/app-error.js';
import { deleteLogsBefore } from './log-cleanup.js';
import { logCsvChunks } from './log-export.js';
import { listLogRows } from './log-list.js';
import { readSums, windowOf, type SumFilters } from './log-rollup-read.js';
import { adminScope, LOG_COLUMNS, ownScope, toLogRecord, type LogScope } from './log-scope.js';
import { ITEMS_PER_PAGE, pageOffset } from './paging.js';
import type { ServiceDeps } from './service-deps.js';

/** A search keyword that may also name a log type. */
const NUMERIC_KEYWORD = /^\d{1,9}$/;

type LogCondition = (eb: ExpressionBuilder<Tables, 'logs'>) => Expression<SqlBool>;

/** The roll-ups' filters of a scope (its type aside: statistics count consumption only). */
export const sumFiltersOf = (scope: LogScope): SumFilters => ({
  user_id: scope.user_id,
  username: scope.username,
  token_name: scope.token_name,
  model_name: scope.model_name,
  channel_id: scope.channel,
  client_format: scope.client_format,
});

/**
 * The logs (one-api §3.8), in the logs' database (which may be one of its own). Every read here may
 * cover millions of rows, so all of them go to `deps.logReadDb` (off the relay's thread on SQLite),
 * and the cleanup deletes in batches.
 */
export const createLogService = (deps: ServiceDeps) => {
  const db = deps.logReadDb;
  /** The cleanup running on this instance: a second one waits for it (and then finds less to delete). */
  let cleaning: Promise<unknown> = Promise.resolve();

  const list = async (scope: LogScope, page: number): Promise<Log[]> =>
    (await listLogRows(db, scope, ITEMS_PER_PAGE, pageOffset(page))).map(toLogRecord);

  const recent = async (condition: LogCondition): Promise<Log[]> => {
    const rows = await db
      .selectFrom('logs')
      .select(LOG_COLUMNS)
      .where(condition)
      .orderBy('id', 'desc')
      .limit(MAX_RECENT_ITEMS)
      .execute();
    return rows.map(toLogRecord);
  };

  /** Consumption totals: type-2 rows only, whatever type was asked for; from the roll-ups. */
  const stat = async (scope: LogScope): Promise<LogStat> => {
    const [sums] = await readSums(
      db,
      sumFiltersOf(scope),
      windowOf(scope.start_timestamp, scope.end_timestamp),
    );
    return { quota: sums?.quota ?? 0, token: (sums?.prompt_tokens ?? 0) + (sums?.completion_tokens ?? 0) };
  };

  return {
    list: (filter: LogListQuery, page: number) => list(adminScope(filter), page),
    listOwn: (userId: number, filter: OwnLogListQuery, page: number) => list(ownScope(userId, filter), page),

    /** Every user's logs: `type = keyword` when it is a number, or content starting with it. */
    search: (keyword: string) =>
      recent((eb) =>
        NUMERIC_KEYWORD.test(keyword)
          ? eb.or([eb('type', '=', Number(keyword)), prefixMatch('content', keyword)])
          : prefixMatch('content', keyword),
      ),

    /** The caller's logs: `type = keyword` when it is a number, else content starting with it. */
    searchOwn: (userId: number, keyword: string) =>
      recent((eb) =>
        eb.and([
          eb('user_id', '=', userId),
          NUMERIC_KEYWORD.test(keyword) ? eb('type', '=', Number(keyword)) : prefixMatch('content', keyword),
        ]),
      ),

    stat: (filter: LogFilter) => stat(adminScope(filter)),
    statOwn: (userId: number, filter: OwnLogFilter) => stat(ownScope(userId, filter)),

    /** Deletes every log (any type) older than the target, in batches; answers how many went. */
    deleteBefore: async (target: number): Promise<number> => {
      if (!target) throw businessError('target timestamp is required');
      const run = cleaning.then(() =>
        deleteLogsBefore(
          { db: deps.logMaintenanceDb, readDb: deps.logReadDb, dialect: deps.logDialect },
          target,
        ),
      );
      cleaning = run.catch(() => undefined);
      return run;
    },

    /** CSV chunks of the filtered logs, newest first, read in batches. */
    exportCsv: (filter: LogFilter) => logCsvChunks(db, adminScope(filter)),
    exportOwnCsv: (userId: number, filter: OwnLogFilter) => logCsvChunks(db, ownScope(userId, filter)),
  };
};

export type LogService = ReturnType<typeof createLogService>;
