/**
 * The budget ledger's writes behind admission (budget-ledger.ts): every second what the slices spent
 * moves from `held` to `used` in their rows, and idle slices and past quarter hours' ones give back
 * the room they did not spend.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Tables } from '../../db/tables.js';
import type { BudgetSlices, Slice } from './budget-slices.js';

/** A slice unused this long with nothing in flight is given back. */
export const SLICE_IDLE_MS = 2_000;

/** Adds `spent` to a slice's row's `used` and takes `held` from its `held`. */
export const moveRow = (
  trx: Kysely<Tables> | Transaction<Tables>,
  slice: Slice,
  spent: number,
  held: number,
) =>
  trx
    .updateTable('sluice_budget_usage')
    .set((eb) => ({ used: eb('used', '+', spent), held: eb('held', '-', held) }))
    .where('subject', '=', slice.one.subject)
    .where('subject_id', '=', slice.one.id)
    .where('bucket', '=', slice.bucket)
    .execute();

export interface BudgetSweepDeps {
  readonly db: Kysely<Tables>;
  readonly slices: BudgetSlices;
  /** The ledger's clock, ms. */
  readonly now: () => number;
}

/**
 * The sweep: one at a time; a failed one (the database away) leaves everything for the next. `all`
 * gives back every slice with nothing in flight, idle or not (shutdown, tests' books).
 */
export const createBudgetSweep = ({ db, slices, now }: BudgetSweepDeps) => {
  const write = async (all: boolean): Promise<void> => {
    const { flush, giveBack } = slices.toWrite(all ? Number.POSITIVE_INFINITY : now() - SLICE_IDLE_MS);
    const moves = [
      ...flush.map((slice) => ({
        slice,
        spent: slice.spent - slice.written,
        held: slice.spent - slice.written,
      })),
      ...giveBack.map((slice) => ({
        slice,
        spent: slice.spent - slice.written,
        held: slice.granted - slice.written,
      })),
    ];
    const writes = moves.filter((move) => move.spent !== 0 || move.held !== 0);
    try {
      if (writes.length > 0)
        await db.transaction().execute(async (trx) => {
          for (const { slice, spent, held } of writes) await moveRow(trx, slice, spent, held);
        });
    } catch (error) {
      for (const slice of giveBack) slices.given(slice, false);
      throw error;
    }
    for (const { slice, spent } of moves) slice.written += spent;
    for (const slice of giveBack) slices.given(slice, true);
  };
  let sweeping: Promise<void> = Promise.resolve();
  return (all = false): Promise<void> => {
    const run = sweeping.then(() => write(all));
    sweeping = run.catch(() => undefined);
    return run;
  };
};
