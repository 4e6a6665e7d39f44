/**
 * Reservation rows: quota taken from a user (and a limited key) and held by one instance — its
 * quota pools (quota-pools.ts) — so that it is spent or given back by exactly one party: the
 * instance (settlements draw their cost from the row; an idle pool gives the rest back), or after a
 * crash the recovery (billing-recovery.ts), which marks it released (a tombstone) and gives back
 * what it holds, or charges what it owes.
 */
import type { Transaction } from 'kysely';
import { templated } from '../../db/query-template.js';
import type { Tables } from '../../db/tables.js';
import { nowSeconds } from '../../lib/time.js';

/** What a settlement finds of its reservation. */
export type ReservationState = 'held' | 'released' | 'gone';

/** A pool's new row (compiled once per kind of payer: db/query-template.ts). */
export const insertReservation = async (
  trx: Transaction<Tables>,
  id: string,
  instanceId: string,
  payer: { readonly userId: number; readonly tokenId: number; readonly unlimited: boolean },
  quota: number,
): Promise<void> => {
  const { unlimited } = payer;
  await trx.executeQuery(
    templated(
      trx,
      `insert reservation ${unlimited}`,
      (row, instance, userId, tokenId, held, createdAt) =>
        trx.insertInto('sluice_reservations').values({
          id: String(row),
          instance_id: String(instance),
          user_id: Number(userId),
          token_id: Number(tokenId),
          unlimited,
          quota: Number(held),
          created_at: Number(createdAt),
          released_at: 0,
        }),
      [id, instanceId, payer.userId, payer.tokenId, quota, nowSeconds()],
    ),
  );
};

/**
 * The states of the reservations of settlements being written (read without a lock: the rows are
 * drawn from after the balances, so that every hot transaction locks the user first, the
 * reservation second). `held`: draw the cost from it; `released`: the recovery gave it back, charge
 * the user in full; `gone`: its pool was given back, so this settlement was already written (a retry
 * whose first COMMIT did commit).
 */
export const reservationStates = async (
  trx: Transaction<Tables>,
  ids: readonly string[],
): Promise<Map<string, ReservationState>> => {
  // A batch's settlements mostly draw from one pool: each id once, so the statement keeps its shape.
  const distinct = [...new Set(ids)];
  const states = new Map<string, ReservationState>(distinct.map((id) => [id, 'gone']));
  if (distinct.length === 0) return states;
  const { rows } = await trx.executeQuery<{ id: string; released_at: number }>(
    templated(
      trx,
      `reservation states ${distinct.length}`,
      (...wanted) =>
        trx.selectFrom('sluice_reservations').select(['id', 'released_at']).where('id', 'in', wanted),
      distinct,
    ),
  );
  for (const row of rows) states.set(row.id, Number(row.released_at) === 0 ? 'held' : 'released');
  return states;
};

/** A reservation released by a recovery between its state's read and the draw: the batch is written again. */
export class ReservationMoved extends Error {
  override name = 'ReservationMoved';
}

/**
 * Claims a held reservation for giving back: marks it released (a tombstone) unless another party
 * did first, and answers what it holds as of the claim — `undefined` when it was not held. The
 * amount is read after the row is claimed, never before: a settlement's draw committed between a
 * read and the claim would otherwise be given back to the user a second time.
 */
export const claimReservation = async (trx: Transaction<Tables>, id: string): Promise<number | undefined> => {
  const marked = await trx
    .updateTable('sluice_reservations')
    .set({ released_at: nowSeconds() })
    .where('id', '=', id)
    .where('released_at', '=', 0)
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) !== 1) return undefined;
  // The row is this transaction's now (no draw can move it until COMMIT): its quota is the last.
  const row = await trx
    .selectFrom('sluice_reservations')
    .select('quota')
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return Number(row.quota);
};

/**
 * Gives one held reservation back to its user (and a limited key): what it holds, or charges what it
 * owes when it is below zero, unless another party released it first. Answers the amount given back
 * (`undefined`: it was not held).
 */
export const releaseReservation = async (
  trx: Transaction<Tables>,
  row: { id: string; user_id: number; token_id: number; unlimited: boolean | number },
): Promise<number | undefined> => {
  const quota = await claimReservation(trx, row.id);
  if (quota === undefined) return undefined;
  await trx
    .updateTable('users')
    .set((eb) => ({ quota: eb('quota', '+', quota) }))
    .where('id', '=', row.user_id)
    .execute();
  if (!row.unlimited)
    await trx
      .updateTable('tokens')
      .set((eb) => ({ remain_quota: eb('remain_quota', '+', quota) }))
      .where('id', '=', row.token_id)
      .execute();
  return quota;
};
