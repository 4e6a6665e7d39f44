/**
 * Quota pools: what this instance may spend for a payer (a user and their key) without asking the
 * database. A pool is a reservation row this instance holds (`sluice_reservations`), grown in slices
 * taken atomically from the user's quota (and a limited key's) and given back when idle. Admission
 * takes each request's estimate from the pool in memory; the answer replaces the estimate by the
 * real cost at once; the settlement draws the cost from the row. So every instance's exposure —
 * requests in flight, answered but not yet written — is already out of the user's quota in the
 * database, where every other instance sees it: a user goes below zero only by what the requests in
 * flight cost beyond their estimates.
 */
import { randomUUID } from 'node:crypto';
import type { Compilable, Kysely } from 'kysely';
import { withLockRetries } from '../../db/lock-retry.js';
import { templated } from '../../db/query-template.js';
import type { Tables } from '../../db/tables.js';
import { relayError } from '../../lib/app-error.js';
import { claimReservation, insertReservation } from './reservation-rows.js';
import type { Payer } from './settlement-write.js';

export interface PoolsDeps {
  readonly db: Kysely<Tables>;
  readonly instanceId: string;
  /** Told each move this instance makes to a user's quota in the database (− taken, + given back). */
  readonly moved: (userId: number, amount: number) => void;
}

/**
 * A slice covers up to this many estimates (one grow transaction per 200 requests of a payer with
 * quota to spare)…
 */
const SLICE_ESTIMATES = 200;
/** …and at most this share of what the user (or a limited key) holds, so idle pools hold little. */
const SLICE_SHARE = 50;
/** A pool unused this long, with nothing in flight or unwritten, is given back. */
export const POOL_IDLE_MS = 2_000;

interface Pool {
  readonly id: string;
  readonly key: string;
  readonly payer: Payer;
  /** Its row exists (written by its first slice). */
  stored: boolean;
  /** Taken, less the real cost of the requests answered and the estimates of those in flight. */
  balance: number;
  inFlight: number;
  /** Answered requests whose settlement is not yet written (the pool is kept until it is). */
  unwritten: number;
  usedAt: number;
  growing: Promise<void> | undefined;
}

/** The row was given back by a recovery while this instance held it (stalled past its lease). */
class PoolReleased extends Error {}

export const createQuotaPools = (deps: PoolsDeps) => {
  const { db } = deps;
  const byKey = new Map<string, Pool>();
  const byId = new Map<string, Pool>();
  /** Pools retired from `byKey` whose row could not be given back yet (the database away). */
  const retired = new Set<Pool>();

  /** Forgets a retired pool once nothing of it is in flight or unwritten. */
  const forgetIfDone = (pool: Pool) => {
    if (byKey.get(pool.key) !== pool && !retired.has(pool) && pool.inFlight === 0 && pool.unwritten === 0)
      byId.delete(pool.id);
  };

  const poolFor = (payer: Payer): Pool => {
    const key = `${payer.userId}:${payer.tokenId}`;
    let pool = byKey.get(key);
    if (!pool) {
      pool = {
        id: randomUUID(),
        key,
        payer,
        stored: false,
        balance: 0,
        inFlight: 0,
        unwritten: 0,
        usedAt: 0,
        growing: undefined,
      };
      byKey.set(key, pool);
      byId.set(pool.id, pool);
    }
    return pool;
  };

  const take = (pool: Pool, estimate: number): string => {
    pool.balance -= estimate;
    pool.inFlight += 1;
    pool.usedAt = performance.now();
    return pool.id;
  };

  /**
   * Takes `amount` from the user's quota (and a limited key's) into the pool's row, atomically. Its
   * statements are compiled once (db/query-template.ts): a key's first request waits for them. A
   * transaction the database rolled back for a lock conflict (on MySQL, a deadlock with another
   * instance's settlement) is run again rather than failing the request.
   */
  const grow = async (pool: Pool, amount: number): Promise<void> => {
    const { payer } = pool;
    await withLockRetries(() =>
      db.transaction().execute(async (trx) => {
        /** Rows one of the transaction's UPDATEs changed. */
        const changed = async (name: string, build: (...values: number[]) => Compilable, values: number[]) =>
          Number((await trx.executeQuery(templated(trx, name, build, values))).numAffectedRows ?? 0);
        // The row first: the user's row, which every request of the user needs, is locked last.
        if (!pool.stored) await insertReservation(trx, pool.id, deps.instanceId, payer, 0);
        const user = await changed(
          'grow pool: users',
          (take, id) =>
            trx
              .updateTable('users')
              .set((eb) => ({ quota: eb('quota', '-', take) }))
              .where('id', '=', id)
              .where('quota', '>=', take),
          [amount, payer.userId],
        );
        if (user !== 1) throw relayError(403, 'insufficient_user_quota', 'user quota is not enough');
        if (!payer.unlimited) {
          const token = await changed(
            'grow pool: tokens',
            (take, id) =>
              trx
                .updateTable('tokens')
                .set((eb) => ({ remain_quota: eb('remain_quota', '-', take) }))
                .where('id', '=', id)
                .where('remain_quota', '>=', take),
            [amount, payer.tokenId],
          );
          if (token !== 1)
            throw relayError(403, 'pre_consume_token_quota_failed', 'token quota is not enough');
        }
        const grown = await trx.executeQuery(
          templated(
            trx,
            'grow pool: reservation',
            (take, id) =>
              trx
                .updateTable('sluice_reservations')
                .set((eb) => ({ quota: eb('quota', '+', Number(take)) }))
                .where('id', '=', String(id))
                .where('released_at', '=', 0),
            [amount, pool.id],
          ),
        );
        if (Number(grown.numAffectedRows ?? 0) !== 1) throw new PoolReleased();
      }),
    );
    pool.stored = true;
    pool.balance += amount;
    deps.moved(payer.userId, -amount);
  };

  /** Grows the pool by a slice (or by just what is missing when the slice cannot be covered). */
  const growFor = async (pool: Pool, estimate: number, quota: number, keyRemain: number): Promise<void> => {
    const need = estimate - pool.balance;
    const share = Math.floor(Math.min(quota, pool.payer.unlimited ? quota : keyRemain) / SLICE_SHARE);
    const slice = Math.max(need, Math.min(SLICE_ESTIMATES * estimate, share));
    try {
      await grow(pool, slice);
    } catch (error) {
      if (error instanceof PoolReleased || slice === need) throw error;
      await grow(pool, need);
    }
  };

  /**
   * Admits a request of `estimate`: its pool's id, at once when the pool holds enough, else once a
   * slice is taken from the database (refused with 403 when the user or a limited key cannot cover
   * even the estimate). `quota` and `keyRemain` (as last read) size the slice.
   */
  const admit = (
    payer: Payer,
    estimate: number,
    quota: number,
    keyRemain: number,
  ): string | Promise<string> => {
    const pool = poolFor(payer);
    if (pool.balance >= estimate && pool.growing === undefined) return take(pool, estimate);
    return (async () => {
      for (;;) {
        const current = poolFor(payer);
        if (current.balance >= estimate) return take(current, estimate);
        if (current.growing) {
          // Another request is growing it: wait, then look again (one grow at a time per pool).
          await current.growing.catch(() => undefined);
          continue;
        }
        const growing = growFor(current, estimate, quota, keyRemain);
        current.growing = growing;
        try {
          await growing;
        } catch (error) {
          if (!(error instanceof PoolReleased)) throw error;
          // Given back while this instance stalled: its requests settle in full; a new pool serves.
          if (byKey.get(current.key) === current) byKey.delete(current.key);
          forgetIfDone(current);
        } finally {
          if (current.growing === growing) current.growing = undefined;
        }
      }
    })();
  };

  /** The request was answered: its estimate is replaced by its real cost; its settlement follows. */
  const answered = (poolId: string, estimate: number, cost: number) => {
    const pool = byId.get(poolId);
    if (!pool) return;
    pool.balance += estimate - cost;
    pool.inFlight -= 1;
    pool.unwritten += 1;
  };

  /** The request failed: its estimate goes back to the pool (nothing was written for it). */
  const failed = (poolId: string, estimate: number) => {
    const pool = byId.get(poolId);
    if (!pool) return;
    pool.balance += estimate;
    pool.inFlight -= 1;
    forgetIfDone(pool);
  };

  /** Its settlement is written. */
  const written = (poolId: string) => {
    const pool = byId.get(poolId);
    if (!pool) return;
    pool.unwritten -= 1;
    forgetIfDone(pool);
  };

  /** Gives a pool's row back to the user (and a limited key): what it holds, or what it owes. */
  const giveBack = async (pool: Pool): Promise<void> => {
    const { payer } = pool;
    const given = await db.transaction().execute(async (trx) => {
      // Claimed first: a recovery that released it meanwhile (this instance stalled past its lease)
      // gave it back already, and only one of the two may.
      const amount = await claimReservation(trx, pool.id);
      if (amount === undefined) return 0;
      await trx
        .updateTable('users')
        .set((eb) => ({ quota: eb('quota', '+', amount) }))
        .where('id', '=', payer.userId)
        .execute();
      if (!payer.unlimited)
        await trx
          .updateTable('tokens')
          .set((eb) => ({ remain_quota: eb('remain_quota', '+', amount) }))
          .where('id', '=', payer.tokenId)
          .execute();
      await trx.deleteFrom('sluice_reservations').where('id', '=', pool.id).execute();
      return amount;
    });
    deps.moved(payer.userId, given);
  };

  /**
   * Gives back the pools with nothing in flight or unwritten (unused for POOL_IDLE_MS, or all of
   * them with `all`). A pool being given back takes no request: the next one opens a new pool.
   */
  const giveBackIdle = async (all: boolean): Promise<void> => {
    const now = performance.now();
    for (const pool of [...byKey.values()]) {
      if (pool.inFlight > 0 || pool.unwritten > 0 || pool.growing) continue;
      if (!all && now - pool.usedAt < POOL_IDLE_MS) continue;
      byKey.delete(pool.key);
      retired.add(pool);
    }
    let failure: Error | undefined;
    for (const pool of [...retired]) {
      try {
        if (pool.stored) await giveBack(pool);
        retired.delete(pool);
        forgetIfDone(pool);
      } catch (error) {
        // Kept: given back on the next pass (the database away, say).
        failure = error instanceof Error ? error : new Error(String(error));
      }
    }
    if (failure !== undefined) throw failure;
  };

  return {
    admit,
    answered,
    failed,
    written,
    giveBackIdle,
  };
};

export type QuotaPools = ReturnType<typeof createQuotaPools>;
