/**
 * Reservation rows: quota taken before a call, recorded with the instance that holds it, so that a
 * reservation is settled or given back by exactly one party — its request's settlement, or after a
 * crash the recovery (billing-recovery.ts). Each party takes the row in the transaction that moves
 * the balances: the settlement deletes it, the recovery marks it released (a tombstone) and refunds.
 */
import type { Transaction } from 'kysely';
import type { Tables } from '../../db/tables.js';
import { nowSeconds } from '../../lib/time.js';

/** What a settlement finds of its reservation. */
export type ReservationState = 'held' | 'released' | 'gone';

export const insertReservation = (
  trx: Transaction<Tables>,
  id: string,
  instanceId: string,
  payer: { readonly userId: number; readonly tokenId: number; readonly unlimited: boolean },
  quota: number,
) =>
  trx
    .insertInto('sluice_reservations')
    .values({
      id,
      instance_id: instanceId,
      user_id: payer.userId,
      token_id: payer.tokenId,
      unlimited: payer.unlimited,
      quota,
      created_at: nowSeconds(),
      released_at: 0,
    })
    .execute();

/**
 * The states of the reservations of settlements being written (read without a lock: the rows are
 * taken by `takeReservations` after the balances, so that every hot transaction locks the user
 * first, the reservation second, and none waits on another in the opposite order).
 * `held`: settle against it; `released`: the recovery gave it back, charge in full; `gone`: this
 * settlement was already written (a retry whose first COMMIT did commit).
 */
export const reservationStates = async (
  trx: Transaction<Tables>,
  ids: readonly string[],
): Promise<Map<string, ReservationState>> => {
  const states = new Map<string, ReservationState>(ids.map((id) => [id, 'gone']));
  if (ids.length === 0) return states;
  const rows = await trx
    .selectFrom('sluice_reservations')
    .select(['id', 'released_at'])
    .where('id', 'in', ids)
    .execute();
  for (const row of rows) states.set(row.id, Number(row.released_at) === 0 ? 'held' : 'released');
  return states;
};

/** A reservation released by a recovery between its state's read and its taking: the batch is written again. */
export class ReservationMoved extends Error {
  override name = 'ReservationMoved';
}

/**
 * Deletes the rows of the reservations read: those read held must still be held (a recovery that
 * released one meanwhile refunded it, so this transaction's amounts are wrong: it rolls back).
 */
export const takeReservations = async (
  trx: Transaction<Tables>,
  states: ReadonlyMap<string, ReservationState>,
): Promise<void> => {
  const held = [...states].flatMap(([id, state]) => (state === 'held' ? [id] : []));
  const released = [...states].flatMap(([id, state]) => (state === 'released' ? [id] : []));
  if (held.length > 0) {
    const taken = await trx
      .deleteFrom('sluice_reservations')
      .where('id', 'in', held)
      .where('released_at', '=', 0)
      .executeTakeFirst();
    if (Number(taken.numDeletedRows) !== held.length)
      throw new ReservationMoved('a reservation was released while its settlement was being written');
  }
  if (released.length > 0) await trx.deleteFrom('sluice_reservations').where('id', 'in', released).execute();
};

/**
 * Recovery: gives one held reservation back (marks it released and refunds it) unless its request
 * settled or another recovery released it first. Whether this call did.
 */
export const releaseReservation = async (
  trx: Transaction<Tables>,
  row: { id: string; user_id: number; token_id: number; unlimited: boolean | number; quota: number },
): Promise<boolean> => {
  const marked = await trx
    .updateTable('sluice_reservations')
    .set({ released_at: nowSeconds() })
    .where('id', '=', row.id)
    .where('released_at', '=', 0)
    .executeTakeFirst();
  if (Number(marked.numUpdatedRows) !== 1) return false;
  await trx
    .updateTable('users')
    .set((eb) => ({ quota: eb('quota', '+', row.quota) }))
    .where('id', '=', row.user_id)
    .execute();
  if (!row.unlimited)
    await trx
      .updateTable('tokens')
      .set((eb) => ({ remain_quota: eb('remain_quota', '+', row.quota) }))
      .where('id', '=', row.token_id)
      .execute();
  return true;
};
