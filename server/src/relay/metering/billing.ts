import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dsn.js';
import type { Tables } from '../../db/tables.js';
import type { ChangeFeed } from '../../services/change-feed.js';
import { memoryJournal, type BillingJournal } from './billing-journal.js';
import {
  createBudgetLedger,
  type BudgetCrossing,
  type BudgetHold,
  type BudgetSettings,
  type BudgetSubject,
} from './budget-ledger.js';
import { createQuotaPools, POOL_IDLE_MS } from './quota-pools.js';
import { createSettlementBatcher } from './settlement-batch.js';
import type { Payer, Settlement } from './settlement-write.js';

/** How long settlements gather before one transaction writes them all. */
const SETTLEMENT_WINDOW_MS = 25;
/**
 * How long a user's quota read from the database is used to size a pool's slices and for the quota
 * reminders. Money never depends on it: admission takes from pools, grown by atomic SQL.
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
  /** The budgets' clock, ms (tests move it). */
  readonly now?: (() => number) | undefined;
  /** Told the windows a request took to BudgetWarningPercent of their budget (the warning mail). */
  readonly budgetWarning?: ((crossed: readonly BudgetCrossing[]) => void) | undefined;
}

/**
 * Money for the relay, in atomic SQL only (`quota = quota - n`), so concurrent requests and several
 * instances never lose a move. Admission takes from this instance's quota pools (quota-pools.ts:
 * reservation rows it holds, taken from the user's quota in slices); each settlement is journaled
 * (billing-journal.ts) and written in batches that draw its cost from its pool, with its log row in
 * the same transaction when the logs share the database. A crash strands neither (billing-recovery.ts).
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

  const pools = createQuotaPools({ db, instanceId: journal.instanceId, moved: moveCached });
  const budgets = createBudgetLedger({ db, dialect, now: options.now });
  /** Budgeted requests' holds, by their payer object (one per request, made by admission). */
  const holds = new WeakMap<Payer, BudgetHold>();
  /** The request's budget hold replaced by its cost (0: nothing answered it), in memory. */
  const endBudget = (payer: Payer, cost: number): void => {
    const hold = holds.get(payer);
    if (hold === undefined) return;
    holds.delete(payer);
    budgets.end(hold, cost);
  };
  const heldBy = (payer: Payer, hold: BudgetHold) => {
    holds.set(payer, hold);
    if (hold.crossed) options.budgetWarning?.(hold.crossed);
  };
  /**
   * Admits a request against its subjects' budgets (throws BudgetRefusal), at once when this
   * instance's slices hold room for it; its hold ends with it.
   */
  const admitBudget = (
    payer: Payer,
    subjects: readonly BudgetSubject[],
    estimate: number,
    settings: BudgetSettings & { readonly BudgetWarningPercent?: number },
  ): Promise<void> | undefined => {
    const hold = budgets.admit(subjects, estimate, settings);
    if (!(hold instanceof Promise)) {
      heldBy(payer, hold);
      return undefined;
    }
    return hold.then((grown) => heldBy(payer, grown));
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
    settled: (settlement, written) => {
      // One not written stays in the journal; its pool is kept (a restart's recovery settles both).
      if (written && settlement.reservationId) pools.written(settlement.reservationId);
    },
    lag: options.lag,
  });

  /**
   * Charges the real cost: at once against its pool (what admission sees), then journaled and
   * batched with the other settlements of the same few milliseconds.
   */
  const settleAnswered = (settlement: Settlement): Promise<void> => {
    if (settlement.reservationId)
      pools.answered(settlement.reservationId, settlement.preQuota, settlement.quota);
    endBudget(settlement.payer, settlement.quota);
    return settle(settlement);
  };

  /** A failed request costs nothing: its estimate goes back to its pool (nothing to write). */
  const release = (payer: Payer, amount: number, reservationId: string | undefined): Promise<void> => {
    if (reservationId !== undefined) pools.failed(reservationId, amount);
    endBudget(payer, 0);
    return Promise.resolve();
  };

  /** The user's quota as the database had it at most QUOTA_FRESH_MS ago (moved by this instance's moves). */
  const freshQuota = (userId: number): number | undefined => {
    const cached = quotas.get(userId);
    return cached && performance.now() - cached.readAt < QUOTA_FRESH_MS ? cached.quota : undefined;
  };

  /** Reads in flight, per user: requests that find the cached quota stale at once share one read. */
  const reading = new Map<number, Promise<number>>();
  const readQuota = async (userId: number): Promise<number> => {
    const now = performance.now();
    const row = await db.selectFrom('users').select('quota').where('id', '=', userId).executeTakeFirst();
    const quota = Number(row?.quota ?? 0);
    if (row) {
      // Bounded: one entry per user who relayed; a very large user base starts the cache over.
      if (quotas.size >= 100_000) quotas.clear();
      quotas.set(userId, { quota, readAt: now });
    }
    return quota;
  };
  const userQuota = (userId: number): Promise<number> => {
    const fresh = freshQuota(userId);
    if (fresh !== undefined) return Promise.resolve(fresh);
    let read = reading.get(userId);
    if (!read) {
      read = readQuota(userId).finally(() => reading.delete(userId));
      reading.set(userId, read);
    }
    return read;
  };

  // Idle pools go back to their users every second; budget slices write what they spent and give
  // back idle room as often.
  const sweeper = setInterval(() => {
    pools.giveBackIdle(false).catch(() => undefined);
    budgets.sweep().catch(() => undefined);
  }, POOL_IDLE_MS / 2);
  sweeper.unref();
  // Budget buckets no window reaches any more are deleted hourly.
  const pruner = setInterval(() => {
    budgets.prune().catch(() => undefined);
  }, 3_600_000);
  pruner.unref();

  return {
    /**
     * Admits a request of `estimate` for `payer`: the id of the pool it was taken from, at once when
     * the pool holds enough; refused with 403 when the user or a limited key cannot cover it.
     */
    admit: pools.admit,
    admitBudget,
    /** Budgets of keys and users (budget-ledger.ts): window usage for the console and the key. */
    budgets,
    release,
    settle: settleAnswered,
    /** Settlements not yet committed (admission refuses new requests when there are too many). */
    backlog: () => settle.backlog(),
    /**
     * Gives back every pool with nothing in flight or unwritten and every budget slice with nothing
     * in flight (shutdown, and tests' books).
     */
    giveBackPools: async () => {
      // Both tried, whichever fails (the database away): what one could not write waits for later.
      const [slices, quota] = await Promise.allSettled([budgets.sweep(true), pools.giveBackIdle(true)]);
      if (quota.status === 'rejected') throw quota.reason;
      if (slices.status === 'rejected') throw slices.reason;
    },
    /** Shutdown: stop waiting long for a database that is away, and stop the pool sweeper. */
    stopRetrying: () => {
      clearInterval(sweeper);
      clearInterval(pruner);
      settle.stop();
    },
    journal,
    /** Undefined when every settlement made so far is in the journal; else the promise of its write. */
    durable: () => journal.durable(),
    userQuota,
    freshQuota,
  };
};

export type Billing = ReturnType<typeof createBilling>;
