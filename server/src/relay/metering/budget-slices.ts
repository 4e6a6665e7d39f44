/**
 * The in-memory half of the budget ledger (budget-ledger.ts): what this instance may still admit for
 * each budgeted key and user in the current quarter hour without asking the database. A slice is a
 * share of a subject's room that the ledger took in the database (`held` of the subject's bucket
 * row); admission takes each request's estimate from it, the answer replaces the estimate by the real
 * cost, and the ledger moves what was spent from `held` to `used` every second and gives back what is
 * left when the slice is idle or its quarter hour has passed. No request on any instance can use room
 * another instance's slice holds, so budgets hold across instances as they did with one transaction
 * per request; admission costs a few comparisons.
 */
import type { Tables } from '../../db/tables.js';
import { BUDGET_WINDOWS, type WindowSpans } from '../../lib/budget-windows.js';
import type { KeyAuth } from '../request/key-auth.js';
import { emptyUsage, type WindowUsage } from '../../services/budget-usage.js';
import type { BudgetCrossing } from '../../services/budget-warning.js';

/** A key or user with at least one budget: its limits in BUDGET_WINDOWS' order (0: unset). */
export interface BudgetSubject {
  readonly subject: 'u' | 't';
  readonly id: number;
  readonly limits: readonly number[];
}

type BudgetRow = Pick<Tables['tokens'], 'budget_5h' | 'budget_daily' | 'budget_weekly' | 'budget_monthly'> & {
  readonly id: number;
};

const positive = (value: number | null | undefined): number => {
  const number = Number(value ?? 0);
  return Number.isFinite(number) && number > 0 ? number : 0;
};

const subjectOf = (subject: 'u' | 't', row: BudgetRow): BudgetSubject | undefined => {
  const limits = [
    positive(row.budget_5h),
    positive(row.budget_daily),
    positive(row.budget_weekly),
    positive(row.budget_monthly),
  ];
  return limits.some((limit) => limit > 0) ? { subject, id: row.id, limits } : undefined;
};

/** The user's and the key's budgets (the user first: the order their rows are locked in); undefined when none is set. */
export const budgetSubjectsOf = (auth: KeyAuth): BudgetSubject[] | undefined => {
  const { user, token } = auth;
  if (
    !user.budget_5h &&
    !user.budget_daily &&
    !user.budget_weekly &&
    !user.budget_monthly &&
    !token.budget_5h &&
    !token.budget_daily &&
    !token.budget_weekly &&
    !token.budget_monthly
  )
    return undefined;
  const subjects = [subjectOf('u', user), subjectOf('t', token)].filter((one) => one !== undefined);
  return subjects.length > 0 ? subjects : undefined;
};

export interface Slice {
  readonly key: string;
  readonly one: BudgetSubject;
  /** The quarter hour whose row holds it (Unix seconds). */
  readonly bucket: number;
  /** The windows' mode and time zone it was granted under. */
  readonly windows: string;
  /** Put in the row (`used` + `held`) by this slice's grows. */
  granted: number;
  /** The estimates of its requests in flight and the real costs of those answered. */
  spent: number;
  /** The part of `spent` moved from `held` to `used` in the row. */
  written: number;
  inFlight: number;
  usedAt: number;
  /** What the other requests of every instance held in each window at the last grow. */
  others: WindowUsage;
  growing: Promise<void> | undefined;
  /** Being given back by the sweep. */
  returning: boolean;
}

/** A request's place in its budgets: the slices its estimate was taken from. */
export interface BudgetHold {
  readonly slices: readonly Slice[];
  readonly estimate: number;
  /** The windows this request took to BudgetWarningPercent of their budget or past it (warning mail). */
  readonly crossed?: readonly BudgetCrossing[] | undefined;
}

const sameLimits = (a: readonly number[], b: readonly number[]): boolean =>
  a.length === b.length && a.every((limit, index) => limit === b[index]);

export const createBudgetSlices = () => {
  /** The slice of each subject (`u:7`, `t:9`) requests take from now. */
  const current = new Map<string, Slice>();
  /** Slices no request takes from any more (idle, an older quarter hour, other limits), not yet given back. */
  const retired = new Set<Slice>();

  const retire = (slice: Slice) => {
    if (current.get(slice.key) === slice) current.delete(slice.key);
    retired.add(slice);
  };

  /**
   * The subject's slice in `bucket` under `windows` (BudgetWindowMode and BudgetTimeZone): a new,
   * empty one when it has none there or its limits or the windows changed.
   */
  const sliceOf = (one: BudgetSubject, bucket: number, windows: string): Slice => {
    const key = `${one.subject}:${one.id}`;
    const found = current.get(key);
    if (
      found &&
      found.bucket === bucket &&
      found.windows === windows &&
      sameLimits(found.one.limits, one.limits)
    )
      return found;
    if (found) retire(found);
    const slice: Slice = {
      key,
      one,
      bucket,
      windows,
      granted: 0,
      spent: 0,
      written: 0,
      inFlight: 0,
      usedAt: 0,
      others: emptyUsage(),
      growing: undefined,
      returning: false,
    };
    current.set(key, slice);
    return slice;
  };

  /** Takes `estimate` from every slice (each holds room for it); the windows it takes past `percent`. */
  const take = (
    slices: readonly Slice[],
    estimate: number,
    percent: number,
    spans: WindowSpans,
    nowMs: number,
  ): BudgetHold => {
    let crossed: BudgetCrossing[] | undefined;
    const nowSeconds = Math.floor(nowMs / 1000);
    for (const slice of slices) {
      slice.spent += estimate;
      slice.inFlight += 1;
      slice.usedAt = nowMs;
      if (percent <= 0) continue;
      const { limits } = slice.one;
      for (const [index, window] of BUDGET_WINDOWS.entries()) {
        const limit = limits[index] ?? 0;
        const used = slice.others[window] + slice.spent;
        if (limit > 0 && used * 100 >= limit * percent)
          (crossed ??= []).push({
            subject: slice.one.subject,
            id: slice.one.id,
            window,
            limit,
            used,
            endsAt: spans[window].resetsAt ?? nowSeconds * 2 - spans[window].start,
          });
      }
    }
    return { slices, estimate, crossed };
  };

  /** The request ended: its estimate is replaced by what it cost (0: nothing answered it). */
  const end = (hold: BudgetHold, cost: number) => {
    for (const slice of hold.slices) {
      slice.spent += cost - hold.estimate;
      slice.inFlight -= 1;
    }
  };

  /**
   * Retires the slices nothing is in flight on that were unused since `idleBefore` (all of them:
   * Infinity); answers the retired slices ready to be given back and the current ones with spending
   * to move to `used`.
   */
  const toWrite = (idleBefore: number): { flush: Slice[]; giveBack: Slice[] } => {
    for (const slice of current.values())
      if (slice.inFlight === 0 && slice.growing === undefined && slice.usedAt < idleBefore) retire(slice);
    const giveBack = [...retired].filter((slice) => slice.inFlight === 0 && slice.growing === undefined);
    for (const slice of giveBack) slice.returning = true;
    const flush = [...current.values(), ...retired].filter(
      (slice) => slice.spent !== slice.written && !slice.returning,
    );
    return { flush, giveBack };
  };

  /** A retired slice was given back (forgotten), or could not be (kept for the next sweep). */
  const given = (slice: Slice, done: boolean) => {
    if (done) retired.delete(slice);
    slice.returning = false;
  };

  /**
   * The retired slices of a subject (an older quarter hour, other limits) still holding unspent room
   * that no sweep or grow is writing: the next grow gives their room back in its own transaction, so
   * it is not counted against the subject while their requests in flight end.
   */
  const staleOf = (key: string): Slice[] =>
    [...retired].filter(
      (slice) =>
        slice.key === key &&
        !slice.returning &&
        slice.growing === undefined &&
        slice.granted - slice.spent > 0,
    );

  return { sliceOf, take, end, toWrite, given, staleOf };
};

export type BudgetSlices = ReturnType<typeof createBudgetSlices>;
