import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../db/tables.js';
import { relayError } from '../lib/app-error.js';
import { createSettlementBatcher, type Payer } from './settlement-batch.js';

/** How long settlements gather before one transaction writes them all. */
const SETTLEMENT_WINDOW_MS = 10;

type Db = Kysely<Tables> | Transaction<Tables>;

const moveQuota = async (db: Db, payer: Payer, amount: number): Promise<void> => {
  if (amount === 0) return;
  await db
    .updateTable('users')
    .set((eb) => ({ quota: eb('quota', '-', amount) }))
    .where('id', '=', payer.userId)
    .execute();
  if (!payer.unlimited)
    await db
      .updateTable('tokens')
      .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
      .where('id', '=', payer.tokenId)
      .execute();
};

/**
 * Money for the relay, in atomic SQL only (`quota = quota - n`), so concurrent requests and several
 * instances never lose a move. The consumption log row is written in the same transaction as the
 * quota it accounts for when the logs share the database.
 */
export const createBilling = (db: Kysely<Tables>, logDb: Kysely<Tables>) => {
  /** Reserves quota before the call: refused when the user or a limited token cannot cover it. */
  const reserve = async (payer: Payer, amount: number): Promise<void> => {
    if (amount <= 0) return;
    await db.transaction().execute(async (trx) => {
      const user = await trx
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '-', amount) }))
        .where('id', '=', payer.userId)
        .where('quota', '>=', amount)
        .executeTakeFirst();
      if (Number(user.numUpdatedRows) !== 1)
        throw relayError(403, 'insufficient_user_quota', 'user quota is not enough');
      if (payer.unlimited) return;
      const token = await trx
        .updateTable('tokens')
        .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
        .where('id', '=', payer.tokenId)
        .where('remain_quota', '>=', amount)
        .executeTakeFirst();
      if (Number(token.numUpdatedRows) !== 1)
        throw relayError(403, 'pre_consume_token_quota_failed', 'token quota is not enough');
    });
  };

  /** Gives a reservation back (a failed request costs nothing). */
  const release = (payer: Payer, amount: number): Promise<void> => moveQuota(db, payer, -amount);

  /**
   * Charges the real cost: the difference to the reservation, the counters, the log row; batched
   * with the other settlements of the same few milliseconds into one transaction.
   */
  const settle = createSettlementBatcher(db, logDb, SETTLEMENT_WINDOW_MS);

  /** The user's current quota (read fresh: it moves with every request). */
  const userQuota = async (userId: number): Promise<number> => {
    const row = await db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirst();
    return row?.quota ?? 0;
  };

  return { reserve, release, settle, userQuota };
};

export type Billing = ReturnType<typeof createBilling>;
