import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dsn.js';
import type { Tables } from '../../db/tables.js';
import { relayError } from '../../lib/app-error.js';
import type { ChangeFeed } from '../../services/change-feed.js';
import { memoryJournal, type BillingJournal } from './billing-journal.js';
import { insertReservation } from './reservation-rows.js';
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

export interface BillingOptions {
  readonly db: Kysely<Tables>;
  readonly logDb: Kysely<Tables>;
  readonly dialect: Dialect;
  readonly changes: ChangeFeed;
  /** Where settlements are recorded before their answer ends (boot: a file; tests: memory). */
  readonly journal?: BillingJournal | undefined;
  /** Told the seconds from each answer's end to its settlement's commit (the billing lag). */
  readonly lag?: ((seconds: number) => void) | undefined;
}

/**
 * Money for the relay, in atomic SQL only (`quota = quota - n`), so concurrent requests and several
 * instances never lose a move. The consumption log row is written in the same transaction as the
 * quota it accounts for when the logs share the database. A reservation is a row held by this
 * instance (reservation-rows.ts), and every settlement or release goes through the journal first
 * (billing-journal.ts): a crash strands neither.
 */
export const createBilling = (options: BillingOptions) => {
  const { db, logDb, dialect, changes } = options;
  const journal = options.journal ?? memoryJournal(randomUUID());
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

  /**
   * Reserves quota before the call, recorded as a row this instance holds: its id. Refused when the
   * user or a limited token cannot cover it.
   */
  const reserve = async (payer: Payer, amount: number): Promise<string | undefined> => {
    if (amount <= 0) return undefined;
    const id = randomUUID();
    await db.transaction().execute(async (trx) => {
      // The row first: the user's row, which every request of the user needs, is locked last.
      await insertReservation(trx, id, journal.instanceId, payer, amount);
      const user = await trx
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '-', amount) }))
        .where('id', '=', payer.userId)
        .where('quota', '>=', amount)
        .executeTakeFirst();
      if (Number(user.numUpdatedRows) !== 1)
        throw relayError(403, 'insufficient_user_quota', 'user quota is not enough');
      if (!payer.unlimited) {
        const token = await trx
          .updateTable('tokens')
          .set((eb) => ({ remain_quota: eb('remain_quota', '-', amount) }))
          .where('id', '=', payer.tokenId)
          .where('remain_quota', '>=', amount)
          .executeTakeFirst();
        if (Number(token.numUpdatedRows) !== 1)
          throw relayError(403, 'pre_consume_token_quota_failed', 'token quota is not enough');
      }
    });
    moveCached(payer.userId, -amount);
    return id;
  };

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
  const settle = createSettlementBatcher({
    db,
    logDb,
    dialect,
    journal,
    windowMs: SETTLEMENT_WINDOW_MS,
    committed: (userMoves) => {
      for (const [userId, amount] of userMoves) moveCached(userId, amount);
    },
    settled: (settlement) => owe(settlement.payer.userId, settlement.preQuota - settlement.quota),
    lag: options.lag,
  });
  /**
   * Charges the real cost: the difference to the reservation, the counters, the log row; journaled
   * at once, then batched with the other settlements of the same few milliseconds.
   */
  const settleOwed = (settlement: Settlement): Promise<void> => {
    owe(settlement.payer.userId, settlement.quota - settlement.preQuota);
    return settle(settlement);
  };

  /**
   * Gives a failed request's reservation back (a failed request costs nothing): a settlement of
   * nothing, journaled and batched like the others, so that it is retried while the database is
   * away and replayed after a crash. Counted as given back at once for the admission check.
   */
  const release = (payer: Payer, amount: number, reservationId: string | undefined): Promise<void> => {
    if (amount <= 0 || reservationId === undefined) return Promise.resolve();
    return settleOwed({
      payer,
      username: '',
      tokenName: '',
      channelId: 0,
      preQuota: amount,
      quota: 0,
      reservationId,
      release: true,
    });
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
    journal,
    userQuota,
    freshQuota,
  };
};

export type Billing = ReturnType<typeof createBilling>;
