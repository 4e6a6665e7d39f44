/**
 * Budgets of keys and users, enforced at admission. A budgeted subject's spending is kept per quarter
 * hour in `sluice_budget_usage`. Admission takes each request's estimate from this instance's slice
 * of the subject's room (budget-slices.ts) in memory; when the slice cannot cover it, one transaction
 * first locks the subject's own row (the user's, then the key's: the order every hot transaction
 * takes them in), checks every window's `used + held` plus the estimate against the budget and adds
 * a slice to `held`: the estimate and, while the windows have room to spare, up to SLICE_ESTIMATES
 * more estimates or a SLICE_SHARE-th of the room left, whichever is less. Requests on every instance
 * are thus admitted against everything admitted or held before them, in flight or answered, and a
 * window is overshot by at most what the requests in flight cost beyond their estimates. Near a
 * budget's end slices shrink to one estimate, so admission is exact there as with one transaction
 * per request; while another instance holds a slice (a SLICE_SHARE-th of the room at most), a request
 * here may be refused a little early until that slice is spent or given back (idle, 2 s).
 * Every second the sweep moves what the slices spent from `held` to `used` (what the console shows)
 * and gives back the room of idle slices and of past quarter hours' ones.
 * Only budgeted subjects are counted: a budget counts from its first request, not from before it was
 * set. A process that dies leaves its slices held until their quarter hours leave the windows (never
 * too little counted: at most a slice per subject more).
 */
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Dialect } from '../../db/dsn.js';
import type { Tables } from '../../db/tables.js';
import { BudgetRefusal } from './budget-refusal.js';
import {
  BUDGET_WINDOWS,
  bucketOf,
  rollingReleaseAt,
  windowSpans,
  type BudgetWindow,
  type WindowSpans,
} from '../../lib/budget-windows.js';
import {
  emptyUsage,
  windowSums,
  type BudgetSettings,
  type WindowUsage,
} from '../../services/budget-usage.js';
import type { BudgetCrossing } from '../../services/budget-warning.js';
import { createBudgetSlices, type BudgetHold, type BudgetSubject, type Slice } from './budget-slices.js';
import { createBudgetSweep, moveRow } from './budget-sweep.js';

export { budgetSubjectsOf } from './budget-slices.js';
export type { BudgetCrossing, BudgetHold, BudgetSettings, BudgetSubject };

/** A slice covers up to this many estimates beyond the request that grows it… */
const SLICE_ESTIMATES = 100;
/** …and at most this share of the tightest window's room left, so slices shrink near a budget's end. */
const SLICE_SHARE = 50;

/** Buckets older than any window (a calendar month and a day) are deleted. */
const KEEP_SECONDS = 32 * 24 * 3600;

export interface BudgetLedgerDeps {
  readonly db: Kysely<Tables>;
  readonly dialect: Dialect;
  /** The clock, ms (tests move it). */
  readonly now?: () => number;
}

export const createBudgetLedger = (deps: BudgetLedgerDeps) => {
  const { db, dialect } = deps;
  const now = deps.now ?? Date.now;
  type Db = Kysely<Tables>;
  const slices = createBudgetSlices();

  // The windows are the same at every instant of a bucket (each window starts on a bucket's start,
  // budget-windows.ts), and computing them reads the time zone's wall clock 13 times through Intl
  // (≈ 60 µs): admission computes them once per bucket, mode and zone.
  let spansKey = '';
  let spansOfBucket: WindowSpans | undefined;
  const spansAt = (nowMs: number, settings: BudgetSettings): WindowSpans => {
    const key = `${bucketOf(Math.floor(nowMs / 1000))} ${settings.BudgetWindowMode} ${settings.BudgetTimeZone}`;
    if (key !== spansKey || !spansOfBucket) {
      spansOfBucket = windowSpans(nowMs, settings.BudgetWindowMode, settings.BudgetTimeZone);
      spansKey = key;
    }
    return spansOfBucket;
  };

  /** Seconds until a refused window frees spending (at least 1). */
  const retryAfter = async (
    trx: Db,
    one: BudgetSubject,
    window: BudgetWindow,
    spans: WindowSpans,
    nowSeconds: number,
  ): Promise<number> => {
    const span = spans[window];
    let freedAt = span.resetsAt;
    if (freedAt === undefined) {
      const oldest = await trx
        .selectFrom('sluice_budget_usage')
        .select((eb) => eb.fn.min('bucket').as('oldest'))
        .where('subject', '=', one.subject)
        .where('subject_id', '=', one.id)
        .where('bucket', '>=', span.start)
        .where(sql`used + held`, '>', 0)
        .executeTakeFirst();
      freedAt = rollingReleaseAt(window, Number(oldest?.oldest ?? bucketOf(nowSeconds)));
    }
    return Math.max(1, Math.ceil(freedAt - nowSeconds));
  };

  /**
   * Grows the slices that cannot cover `estimate`, in one transaction, or throws BudgetRefusal: a
   * request fits while every window's spending (every instance's, this slice's room not counted)
   * plus its estimate fits, or when the window is empty (a budget smaller than one request still
   * lets one through per window).
   */
  const grow = async (
    lacking: readonly Slice[],
    stale: readonly Slice[],
    estimate: number,
    spans: WindowSpans,
    nowMs: number,
  ) => {
    const nowSeconds = Math.floor(nowMs / 1000);
    const grants = new Map<Slice, { amount: number; others: WindowUsage }>();
    const released = new Map(stale.map((slice) => [slice, slice.granted - slice.spent]));
    await db.transaction().execute(async (trx) => {
      if (dialect !== 'sqlite')
        for (const { one } of lacking)
          await trx
            .selectFrom(one.subject === 'u' ? 'users' : 'tokens')
            .select('id')
            .where('id', '=', one.id)
            .forUpdate()
            .execute();
      for (const [slice, amount] of released) await moveRow(trx, slice, 0, amount);
      const sums = await windowSums(
        trx,
        lacking.map((slice) => slice.one),
        spans,
        true,
      );
      for (const slice of lacking) {
        const { one } = slice;
        const sum = sums.get(slice.key) ?? emptyUsage();
        const unspent = slice.granted - slice.spent;
        const others = emptyUsage();
        let room = Number.POSITIVE_INFINITY;
        for (const [index, window] of BUDGET_WINDOWS.entries()) {
          others[window] = sum[window] - slice.granted;
          const limit = one.limits[index] ?? 0;
          if (limit <= 0) continue;
          const exposure = sum[window] - unspent;
          if (exposure > 0 && exposure + estimate > limit) {
            const seconds = await retryAfter(trx, one, window, spans, nowSeconds);
            throw new BudgetRefusal(one.subject, window, limit, exposure, { 'retry-after': String(seconds) });
          }
          room = Math.min(room, limit - exposure - estimate);
        }
        const extra = Math.min(SLICE_ESTIMATES * estimate, Math.floor(Math.max(0, room) / SLICE_SHARE));
        grants.set(slice, { amount: estimate - unspent + extra, others });
      }
      for (const [slice, { amount }] of grants) {
        const added = await trx
          .updateTable('sluice_budget_usage')
          .set((eb) => ({ held: eb('held', '+', amount) }))
          .where('subject', '=', slice.one.subject)
          .where('subject_id', '=', slice.one.id)
          .where('bucket', '=', slice.bucket)
          .executeTakeFirst();
        if (Number(added.numUpdatedRows) === 0)
          await trx
            .insertInto('sluice_budget_usage')
            .values({
              subject: slice.one.subject,
              subject_id: slice.one.id,
              bucket: slice.bucket,
              used: 0,
              held: amount,
            })
            .execute();
      }
    });
    for (const [slice, amount] of released) slice.granted -= amount;
    for (const [slice, grant] of grants) {
      slice.granted += grant.amount;
      slice.others = grant.others;
    }
  };

  type Settings = BudgetSettings & { readonly BudgetWarningPercent?: number };
  const windowsOf = (settings: BudgetSettings) => `${settings.BudgetWindowMode} ${settings.BudgetTimeZone}`;

  /** Admission when a slice must grow first (or another request is growing it). */
  const admitGrowing = async (
    subjects: readonly BudgetSubject[],
    estimate: number,
    settings: Settings,
  ): Promise<BudgetHold> => {
    for (;;) {
      // Looked up again on every turn: a slice may have been retired while this request waited.
      const nowMs = now();
      const spans = spansAt(nowMs, settings);
      const bucket = bucketOf(Math.floor(nowMs / 1000));
      const held = subjects.map((one) => slices.sliceOf(one, bucket, windowsOf(settings)));
      const busy = held.find((slice) => slice.growing !== undefined);
      if (busy?.growing) {
        await busy.growing.catch(() => undefined);
        continue;
      }
      const lacking = held.filter((slice) => slice.granted - slice.spent < estimate);
      if (lacking.length === 0)
        return slices.take(held, estimate, settings.BudgetWarningPercent ?? 0, spans, nowMs);
      const stale = lacking.flatMap((slice) => slices.staleOf(slice.key));
      const growing = grow(lacking, stale, estimate, spans, nowMs);
      const writing = [...lacking, ...stale];
      for (const slice of writing) slice.growing = growing;
      try {
        await growing;
      } finally {
        for (const slice of writing) if (slice.growing === growing) slice.growing = undefined;
      }
    }
  };

  /**
   * Admits a request of `estimate` against its subjects' budgets: at once when this instance's slices
   * hold room for it, else once they grew; throws BudgetRefusal (429) when a window is full.
   */
  const admit = (
    subjects: readonly BudgetSubject[],
    estimate: number,
    settings: Settings,
  ): BudgetHold | Promise<BudgetHold> => {
    const nowMs = now();
    const bucket = bucketOf(Math.floor(nowMs / 1000));
    const held = subjects.map((one) => slices.sliceOf(one, bucket, windowsOf(settings)));
    if (held.every((slice) => slice.growing === undefined && slice.granted - slice.spent >= estimate))
      return slices.take(held, estimate, settings.BudgetWarningPercent ?? 0, spansAt(nowMs, settings), nowMs);
    return admitGrowing(subjects, estimate, settings);
  };

  const sweep = createBudgetSweep({ db, slices, now });

  /** A key's or user's spending in each window now (this instance's written first), and when calendar windows start over. */
  const usage = async (
    subject: 'u' | 't',
    id: number,
    settings: BudgetSettings,
  ): Promise<{ used: WindowUsage; spans: WindowSpans }> => {
    await sweep();
    const spans = windowSpans(now(), settings.BudgetWindowMode, settings.BudgetTimeZone);
    const sums = await windowSums(db, [{ subject, id }], spans);
    return { used: sums.get(`${subject}:${id}`) ?? emptyUsage(), spans };
  };

  /** Deletes the buckets no window reaches any more. */
  const prune = async (): Promise<void> => {
    await db
      .deleteFrom('sluice_budget_usage')
      .where('bucket', '<', bucketOf(Math.floor(now() / 1000) - KEEP_SECONDS))
      .execute();
  };

  return { admit, end: slices.end, sweep, usage, prune };
};

export type BudgetLedger = ReturnType<typeof createBudgetLedger>;
