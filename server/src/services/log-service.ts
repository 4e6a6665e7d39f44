import type { Log, LogFilter, LogStat, OwnLogFilter } from '@sluice/contract/schemas/log';
import { LOG_TYPE, MAX_RECENT_ITEMS } from '@sluice/contract/statuses';
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { prefixMatch } from '../db/prefix-match.js';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';
import { businessError } from '../lib/app-error.js';
import { deleteLogsBefore } from './log-cleanup.js';
import { logCsvChunks } from './log-export.js';
import { adminScope, LOG_COLUMNS, logConditions, ownScope, toLogRecord, type LogScope } from './log-scope.js';
import { ITEMS_PER_PAGE, pageOffset } from './paging.js';
import type { ServiceDeps } from './service-deps.js';

/** A search keyword that may also name a log type. */
const NUMERIC_KEYWORD = /^\d{1,9}$/;

type LogCondition = (eb: ExpressionBuilder<Tables, 'logs'>) => Expression<SqlBool>;

/**
 * The logs (one-api §3.8), in the logs' database (which may be one of its own). Every read here may
 * cover millions of rows, so all of them go to `deps.logReadDb` (off the relay's thread on SQLite),
 * and the cleanup deletes in batches.
 */
export const createLogService = (deps: ServiceDeps) => {
  const db = deps.logReadDb;
  /** The cleanup running on this instance: a second one waits for it (and then finds less to delete). */
  let cleaning: Promise<unknown> = Promise.resolve();

  const list = async (scope: LogScope, page: number): Promise<Log[]> => {
    const rows = await db
      .selectFrom('logs')
      .select(LOG_COLUMNS)
      .where(logConditions(scope))
      .orderBy('id', 'desc')
      .limit(ITEMS_PER_PAGE)
      .offset(pageOffset(page))
      .execute();
    return rows.map(toLogRecord);
  };

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

  /** Consumption totals: type-2 rows only, whatever type was asked for. */
  const stat = async (scope: LogScope): Promise<LogStat> => {
    const row = await db
      .selectFrom('logs')
      .where(logConditions({ ...scope, type: LOG_TYPE.consume }))
      .select([
        sql<unknown>`COALESCE(SUM(quota), 0)`.as('quota'),
        sql<unknown>`COALESCE(SUM(prompt_tokens), 0)`.as('prompt_tokens'),
        sql<unknown>`COALESCE(SUM(completion_tokens), 0)`.as('completion_tokens'),
      ])
      .executeTakeFirst();
    return {
      quota: sqlNumber(row?.quota),
      token: sqlNumber(row?.prompt_tokens) + sqlNumber(row?.completion_tokens),
    };
  };

  return {
    list: (filter: LogFilter, page: number) => list(adminScope(filter), page),
    listOwn: (userId: number, filter: OwnLogFilter, page: number) => list(ownScope(userId, filter), page),

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
        deleteLogsBefore({ db: deps.logMaintenanceDb, readDb: deps.logReadDb }, target),
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
