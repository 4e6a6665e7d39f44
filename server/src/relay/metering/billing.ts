import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { relayError } from '../../lib/app-error.js';
import type { ChangeFeed } from '../../services/change-feed.js';
import { createSettlementBatcher } from './settlement-batch.js';
import type { Payer, Settlement } from './settlement-write.js';

/** How long settlements gather before one transaction writes them all. */
const SETTLEMENT_WINDOW_MS = 25;
/**
 * How long a user's quota read from the database answers the admission check. This instance's own
 * moves are applied to it at once and console changes drop it at once (change feed); the bound only
 * covers what other instances spend meanwhile. Money never depends on it: every move is atomic SQL.
 */
const QUOTA_FRESH_MS = 1000;

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
export const createBilling = (db: Kysely<Tables>, logDb: Kysely<Tables>, changes: ChangeFeed) => {
  const quotas = new Map<number, { quota: number; readAt: number }>();
  const moveCached = (userId: number, amount: number) => {
    const cached = quotas.get(userId);
    if (cached) cached.quota += amount;
  };
  changes.on((change) => {
    if (change.kind !== 'user') return;
    if (typeof change.id === 'number') quotas.delete(change.id);
    else quotas.clear();
  });

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
    moveCached(payer.userId, -amount);
  };

  /** Gives a reservation back (a failed request costs nothing). */
  const release = async (payer: Payer, amount: number): Promise<void> => {
    await moveQuota(db, payer, -amount);
    moveCached(payer.userId, amount);
  };

  /**
   * Charges the real cost: the difference to the reservation, the counters, the log row; batched
   * with the other settlements of the same few milliseconds into one transaction.
   */
  /**
   * What this instance's answered requests owe beyond their reservations and have not yet committed
   * (gathering, or waiting for the database), per user: the admission check counts it at once, so a
   * user cannot spend past their quota while billing catches up. Each settlement stops being owed
   * as its balances commit (the move then is in the cached quota) or as it is given up.
   */
  const owed = new Map<number, number>();
  const owe = (userId: number, amount: number) => {
    const total = (owed.get(userId) ?? 0) + amount;
    if (total === 0) owed.delete(userId);
    else owed.set(userId, total);
  };
  const settle = createSettlementBatcher(
    db,
    logDb,
    SETTLEMENT_WINDOW_MS,
    (userMoves) => {
      for (const [userId, amount] of userMoves) moveCached(userId, amount);
    },
    (settlement) => owe(settlement.payer.userId, settlement.preQuota - settlement.quota),
  );
  const settleOwed = (settlement: Settlement): Promise<void> => {
    owe(settlement.payer.userId, settlement.quota - settlement.preQuota);
    return settle(settlement);
  };

  /**
   * The quota for the admission check while the cached read is fresh, less what is owed, else
   * undefined (then ask `userQuota`): no await on a hit.
   */
  const freshQuota = (userId: number): number | undefined => {
    const cached = quotas.get(userId);
    return cached && performance.now() - cached.readAt < QUOTA_FRESH_MS
      ? cached.quota - (owed.get(userId) ?? 0)
      : undefined;
  };

  /**
   * The user's quota for the admission check: read from the database at most every QUOTA_FRESH_MS,
   * less what this instance's answered requests owe and have not yet written.
   */
  const userQuota = async (userId: number): Promise<number> => {
    const fresh = freshQuota(userId);
    if (fresh !== undefined) return fresh;
    const now = performance.now();
    const row = await db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirst();
    const quota = row?.quota ?? 0;
    if (row) {
      // Bounded: one entry per user who relayed; a very large user base starts the cache over.
      if (quotas.size >= 100_000) quotas.clear();
      quotas.set(userId, { quota, readAt: now });
    }
    return quota - (owed.get(userId) ?? 0);
  };

  return {
    reserve,
    release,
    settle: settleOwed,
    /** Settlements not yet committed (admission refuses new requests when there are too many). */
    backlog: () => settle.backlog(),
    /** Shutdown: stop waiting long for a database that is away. */
    stopRetrying: () => settle.stop(),
    userQuota,
    freshQuota,
  };
};

export type Billing = ReturnType<typeof createBilling>;
