/**
 * What budgeted keys and users spent in each window, read from `sluice_budget_usage` (kept by the
 * relay's budget ledger, relay/metering/budget-ledger.ts): for the token list, the user's own record,
 * the user editor and the key's own endpoint (/v1/dashboard/key).
 */
import type { BudgetWindowUsage } from '@sluice/contract/schemas/limits';
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { Tables } from '../db/tables.js';
import { BUDGET_WINDOWS, windowSpans, type BudgetWindow, type WindowSpans } from '../lib/budget-windows.js';
import type { OptionValues } from './option-values.js';

/** Spending per window, in quota units (the estimates of requests in flight included). */
export type WindowUsage = Record<BudgetWindow, number>;

/** A key ('t') or a user ('u'). */
export interface UsageSubject {
  readonly subject: 'u' | 't';
  readonly id: number;
}

export type BudgetSettings = Pick<OptionValues, 'BudgetWindowMode' | 'BudgetTimeZone'>;

/** A row's budgets as the columns have them. */
export type BudgetColumns = Readonly<
  Pick<Tables['tokens'], 'budget_5h' | 'budget_daily' | 'budget_weekly' | 'budget_monthly'>
>;

export const emptyUsage = (): WindowUsage => ({ '5h': 0, daily: 0, weekly: 0, monthly: 0 });

/**
 * Each subject's spending in each window, keyed `subject:id` (subjects that spent nothing are absent):
 * what was spent (`used`), or with `withHeld` also the room the relay's instances hold for their
 * requests (budget-slices.ts), what admission checks against.
 */
export const windowSums = async (
  db: Kysely<Tables> | Transaction<Tables>,
  subjects: readonly UsageSubject[],
  spans: WindowSpans,
  withHeld = false,
): Promise<Map<string, WindowUsage>> => {
  const sums = new Map<string, WindowUsage>();
  if (subjects.length === 0) return sums;
  const amount = withHeld ? sql`used + held` : sql`used`;
  const earliest = Math.min(...BUDGET_WINDOWS.map((window) => spans[window].start));
  const rows = await db
    .selectFrom('sluice_budget_usage')
    .select([
      'subject',
      'subject_id',
      ...BUDGET_WINDOWS.map((window, index) =>
        sql<string>`SUM(CASE WHEN bucket >= ${spans[window].start} THEN ${amount} ELSE 0 END)`.as(
          `w${index}`,
        ),
      ),
    ])
    .where((eb) =>
      eb.or(subjects.map((one) => eb.and([eb('subject', '=', one.subject), eb('subject_id', '=', one.id)]))),
    )
    .where('bucket', '>=', earliest)
    .groupBy(['subject', 'subject_id'])
    .execute();
  for (const row of rows) {
    const values = row as unknown as Record<string, unknown>;
    sums.set(`${row.subject}:${Number(row.subject_id)}`, {
      '5h': Number(values['w0'] ?? 0),
      daily: Number(values['w1'] ?? 0),
      weekly: Number(values['w2'] ?? 0),
      monthly: Number(values['w3'] ?? 0),
    });
  }
  return sums;
};

const COLUMN: Readonly<Record<BudgetWindow, keyof BudgetColumns>> = {
  '5h': 'budget_5h',
  daily: 'budget_daily',
  weekly: 'budget_weekly',
  monthly: 'budget_monthly',
};

/** A row's set budgets with what each window holds; undefined when it has none. */
export const budgetUsageOf = (
  row: BudgetColumns,
  used: WindowUsage | undefined,
  spans: WindowSpans,
): BudgetWindowUsage[] | undefined => {
  const windows: BudgetWindowUsage[] = [];
  for (const window of BUDGET_WINDOWS) {
    const limit = Number(row[COLUMN[window]] ?? 0);
    if (!(limit > 0)) continue;
    windows.push({ window, limit, used: used?.[window] ?? 0, resets_at: spans[window].resetsAt ?? null });
  }
  return windows.length > 0 ? windows : undefined;
};

const hasBudget = (row: BudgetColumns): boolean =>
  BUDGET_WINDOWS.some((window) => Number(row[COLUMN[window]] ?? 0) > 0);

/**
 * The budgets' usage of many rows of one kind at once (one query): by row id, for the rows that have
 * a budget.
 */
export const readBudgetUsage = async <Row extends BudgetColumns & { readonly id: number }>(
  db: Kysely<Tables>,
  subject: 'u' | 't',
  rows: readonly Row[],
  settings: BudgetSettings,
  nowMs: number = Date.now(),
): Promise<Map<number, BudgetWindowUsage[]>> => {
  const budgeted = rows.filter(hasBudget);
  const usage = new Map<number, BudgetWindowUsage[]>();
  if (budgeted.length === 0) return usage;
  const spans = windowSpans(nowMs, settings.BudgetWindowMode, settings.BudgetTimeZone);
  const sums = await windowSums(
    db,
    budgeted.map((row) => ({ subject, id: row.id })),
    spans,
  );
  for (const row of budgeted) {
    const windows = budgetUsageOf(row, sums.get(`${subject}:${row.id}`), spans);
    if (windows) usage.set(row.id, windows);
  }
  return usage;
};

/** One row's record with its budgets' usage (as `budget_usage`) when it has a budget. */
export const withBudgetUsage = async <Record extends object>(
  db: Kysely<Tables>,
  subject: 'u' | 't',
  row: BudgetColumns & { readonly id: number },
  record: Record,
  settings: BudgetSettings,
): Promise<Record & { budget_usage?: BudgetWindowUsage[] }> => {
  const usage = (await readBudgetUsage(db, subject, [row], settings)).get(row.id);
  return usage ? { ...record, budget_usage: usage } : record;
};
