import { LOG_TYPE } from '@sluice/contract/statuses';
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../db/tables.js';
import { businessError } from '../lib/app-error.js';
import type { ChangeFeed } from './change-feed.js';
import { writeLog } from './log-writer.js';
import type { OptionStore } from './option-store.js';
import { formatLogQuota } from './quota-text.js';

type Db = Kysely<Tables> | Transaction<Tables>;

/** Adds to a user's quota atomically (`quota = quota + n`): concurrent moves never lose one another. */
export const increaseUserQuota = async (db: Db, userId: number, amount: number): Promise<void> => {
  const result = await db
    .updateTable('users')
    .set((eb) => ({ quota: eb('quota', '+', amount) }))
    .where('id', '=', userId)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) throw businessError('user does not exist');
};

/**
 * Quota moves that come with a log row. When the logs live in another database (LOG_SQL_DSN) the log
 * row is written right after the quota move commits.
 */
export const createQuotaService = (deps: {
  db: Kysely<Tables>;
  logDb: Kysely<Tables>;
  options: OptionStore;
  changes: ChangeFeed;
}) => {
  const sameDatabase = deps.db === deps.logDb;

  /** Admin top-up (POST /api/topup): quota + n and a top-up log with the amount. */
  const topUp = async (userId: number, amount: number, remark: string): Promise<void> => {
    const user = await deps.db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) throw businessError('user does not exist');
    const entry = {
      userId,
      username: user.username,
      type: LOG_TYPE.topup,
      content: remark || `top up via API ${formatLogQuota(amount, deps.options.values)}`,
      quota: amount,
    };
    await deps.db.transaction().execute(async (trx) => {
      await increaseUserQuota(trx, userId, amount);
      if (sameDatabase) await writeLog(trx, entry);
    });
    if (!sameDatabase) await writeLog(deps.logDb, entry);
    await deps.changes.emit({ kind: 'user', id: userId });
  };

  return { topUp };
};

export type QuotaService = ReturnType<typeof createQuotaService>;
