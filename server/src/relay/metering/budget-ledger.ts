/**
 * Budgets of keys and users, enforced at admission. A budgeted subject's spending is kept per quarter
 * hour in `sluice_budget_usage`: admission adds the request's estimate to the current bucket, the
 * answer replaces it by the real cost (`end`), a request nothing answered takes it out again. The
 * check and the add are one transaction that first locks the subject's own row (the user's, then the
 * key's: the order every hot transaction takes them in), so requests on every instance are admitted
 * one at a time per subject against everything admitted before them, in flight or answered. A window
 * is thus overshot by at most what the requests in flight cost beyond their estimates.
 * Only budgeted subjects are counted: a budget counts from its first request, not from before it was
 * set. A process that dies with requests in flight leaves their estimates counted (never too little).
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../../db/dsn.js';
import type { Tables } from '../../db/tables.js';
import type { KeyAuth } from '../request/key-auth.js';
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

/** A key or user with at least one budget: its limits in BUDGET_WINDOWS' order (0: unset). */
export interface BudgetSubject {
  readonly subject: 'u' | 't';
  readonly id: number;
  readonly limits: readonly number[];
}

/** A request's place in its budgets: the bucket its estimate went to. */
export interface BudgetHold {
  readonly subjects: readonly BudgetSubject[];
  readonly bucket: number;
  readonly estimate: number;
  /** The windows this request took to BudgetWarningPercent of their budget or past it (warning mail). */
  readonly crossed?: readonly BudgetCrossing[] | undefined;
}

export type { BudgetCrossing, BudgetSettings };

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
        .where('used', '>', 0)
        .executeTakeFirst();
      freedAt = rollingReleaseAt(window, Number(oldest?.oldest ?? bucketOf(nowSeconds)));
    }
    return Math.max(1, Math.ceil(freedAt - nowSeconds));
  };

  /**
   * Admits a request of `estimate` against its subjects' budgets, or throws BudgetRefusal (429):
   * a request is admitted while every window's spending plus its estimate fits, or when the window
   * is empty (a budget smaller than one request still lets one through per window).
   */
  const admit = async (
    subjects: readonly BudgetSubject[],
    estimate: number,
    settings: BudgetSettings & { readonly BudgetWarningPercent?: number },
  ): Promise<BudgetHold> => {
    const percent = settings.BudgetWarningPercent ?? 0;
    let crossed: BudgetCrossing[] | undefined;
    const nowMs = now();
    const nowSeconds = Math.floor(nowMs / 1000);
    const spans = spansAt(nowMs, settings);
    const bucket = bucketOf(nowSeconds);
    await db.transaction().execute(async (trx) => {
      if (dialect !== 'sqlite')
        for (const one of subjects)
          await trx
            .selectFrom(one.subject === 'u' ? 'users' : 'tokens')
            .select('id')
            .where('id', '=', one.id)
            .forUpdate()
            .execute();
      const sums = await windowSums(trx, subjects, spans);
      for (const one of subjects) {
        const used = sums.get(`${one.subject}:${one.id}`) ?? emptyUsage();
        for (const [index, window] of BUDGET_WINDOWS.entries()) {
          const limit = one.limits[index] ?? 0;
          if (limit > 0 && used[window] > 0 && used[window] + estimate > limit) {
            const seconds = await retryAfter(trx, one, window, spans, nowSeconds);
            throw new BudgetRefusal(one.subject, window, limit, used[window], {
              'retry-after': String(seconds),
            });
          }
          if (percent > 0 && limit > 0 && (used[window] + estimate) * 100 >= limit * percent) {
            const span = spans[window];
            (crossed ??= []).push({
              subject: one.subject,
              id: one.id,
              window,
              limit,
              used: used[window] + estimate,
              endsAt: span.resetsAt ?? nowSeconds * 2 - span.start,
            });
          }
        }
      }
      for (const one of subjects) {
        const added = await trx
          .updateTable('sluice_budget_usage')
          .set((eb) => ({ used: eb('used', '+', estimate) }))
          .where('subject', '=', one.subject)
          .where('subject_id', '=', one.id)
          .where('bucket', '=', bucket)
          .executeTakeFirst();
        if (Number(added.numUpdatedRows) === 0)
          await trx
            .insertInto('sluice_budget_usage')
            .values({ subject: one.subject, subject_id: one.id, bucket, used: estimate })
            .execute();
      }
    });
    return { subjects, bucket, estimate, crossed };
  };

  /** The request ended: its estimate is replaced by what it cost (0: nothing answered it). */
  const end = async (hold: BudgetHold, cost: number): Promise<void> => {
    const delta = cost - hold.estimate;
    if (delta === 0) return;
    await db
      .updateTable('sluice_budget_usage')
      .set((eb) => ({ used: eb('used', '+', delta) }))
      .where((eb) =>
        eb.or(
          hold.subjects.map((one) =>
            eb.and([eb('subject', '=', one.subject), eb('subject_id', '=', one.id)]),
          ),
        ),
      )
      .where('bucket', '=', hold.bucket)
      .execute();
  };

  /** A key's or user's spending in each window now, and when calendar windows start over. */
  const usage = async (
    subject: 'u' | 't',
    id: number,
    settings: BudgetSettings,
  ): Promise<{ used: WindowUsage; spans: WindowSpans }> => {
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

  return { admit, end, usage, prune };
};

export type BudgetLedger = ReturnType<typeof createBudgetLedger>;
