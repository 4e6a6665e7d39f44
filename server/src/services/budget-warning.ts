import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Dialect } from '../db/dsn.js';
import type { Tables } from '../db/tables.js';
import { escapeHtml } from '../lib/html.js';
import type { BudgetWindow } from '../lib/budget-windows.js';
import type { Alert } from './alert-service.js';
import { claimMarker } from './code-store.js';
import type { Mailer } from './mailer.js';
import { formatLogQuota } from './quota-text.js';
import type { ServiceDeps } from './service-deps.js';

/** The marker row of a warned window in sluice_codes: purpose, key = subject:id:window; it expires with the window. */
export const BUDGET_WARNED_PURPOSE = 'budget_warn';
const MEMO_LIMIT = 100_000;

export interface BudgetWarningDeps {
  readonly db: Kysely<Tables>;
  readonly dialect: Dialect;
  readonly options: ServiceDeps['options'];
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly track: (work: Promise<unknown>) => void;
  /** The `budget.threshold` alert (the webhooks), raised when the window's mail is claimed. */
  readonly raise?: (alert: Alert) => Promise<void>;
}

/** A subject's window at or past BudgetWarningPercent once a request is admitted (budget-ledger.ts). */
export interface BudgetCrossing {
  readonly subject: 'u' | 't';
  readonly id: number;
  readonly window: BudgetWindow;
  readonly limit: number;
  readonly used: number;
  /** When the window ends (a calendar window's next start; a rolling one's length from now), Unix seconds. */
  readonly endsAt: number;
}

const WINDOW_NAMES = { '5h': '5-hour', daily: 'daily', weekly: 'weekly', monthly: 'monthly' } as const;

/** The `budget.threshold` alert of a crossing; its object is the marker's key (`t:7:daily`). */
const thresholdAlert = (crossing: BudgetCrossing, key: string): Alert => ({
  event: 'budget.threshold',
  objectId: key,
  data: {
    subject: crossing.subject === 'u' ? 'user' : 'token',
    [crossing.subject === 'u' ? 'user_id' : 'token_id']: crossing.id,
    window: crossing.window,
    used: crossing.used,
    cap: crossing.limit,
    ends_at: crossing.endsAt,
  },
});

/**
 * Mails the user once per window when a key's or their own budget reaches BudgetWarningPercent.
 * Whether a window was warned is a marker row in sluice_codes (survives restarts, holds across
 * instances), claimed atomically (only the claim that inserts it mails) and expiring at the window's
 * end, so the next window warns again. Each instance memoises the markers it saw, so a window past
 * the threshold costs the hot path no database work after its first request.
 */
export const createBudgetWarning = (deps: BudgetWarningDeps) => {
  const { db } = deps;
  /** Marker key → the window's end (Unix seconds), as this instance claimed or found it. */
  const known = new Map<string, number>();

  // A marker of a window that ended (not yet purged) makes way for this one.
  const claim = (key: string, endsAt: number): Promise<boolean> =>
    claimMarker(db, deps.dialect, {
      purpose: BUDGET_WARNED_PURPOSE,
      key,
      expiresAt: endsAt,
      now: Math.floor(Date.now() / 1000),
    });

  const emailOf = async (crossing: BudgetCrossing): Promise<{ email: string; what: string }> => {
    if (crossing.subject === 'u') {
      const user = await db
        .selectFrom('users')
        .select('email')
        .where('id', '=', crossing.id)
        .executeTakeFirst();
      return { email: user?.email?.trim() ?? '', what: 'your' };
    }
    const row = await db
      .selectFrom('tokens')
      .innerJoin('users', 'users.id', 'tokens.user_id')
      .select(['users.email', 'tokens.name'])
      .where('tokens.id', '=', crossing.id)
      .executeTakeFirst();
    return { email: row?.email?.trim() ?? '', what: `your key ${row?.name ?? ''}:` };
  };

  const warn = async (crossing: BudgetCrossing, key: string): Promise<void> => {
    if (!(await claim(key, crossing.endsAt))) return;
    if (deps.raise) deps.track(deps.raise(thresholdAlert(crossing, key)));
    const { email, what } = await emailOf(crossing);
    if (email === '') return;
    const values = deps.options.values;
    const window = WINDOW_NAMES[crossing.window];
    const subject = `Budget warning: ${what} ${window} budget is ${values.BudgetWarningPercent}% spent`;
    await deps.mailer.send(
      email,
      subject,
      [
        `<p>${escapeHtml(subject)}: ${escapeHtml(formatLogQuota(crossing.used, values))} of`,
        `${escapeHtml(formatLogQuota(crossing.limit, values))}.</p>`,
        `<p>Requests past the budget are refused until the window ends (${new Date(crossing.endsAt * 1000).toISOString()}).</p>`,
      ].join('\n'),
    );
  };

  return {
    /** Told the windows an admitted request took past the threshold. Synchronous: the work runs in the background. */
    observe: (crossed: readonly BudgetCrossing[]): void => {
      for (const crossing of crossed) {
        const key = `${crossing.subject}:${crossing.id}:${crossing.window}`;
        if ((known.get(key) ?? 0) > Math.floor(Date.now() / 1000)) continue;
        if (known.size >= MEMO_LIMIT) known.clear();
        known.set(key, crossing.endsAt);
        deps.track(
          warn(crossing, key).catch((error: unknown) =>
            deps.logger.error(
              { key, reason: error instanceof Error ? error.message : String(error) },
              'budget warning failed',
            ),
          ),
        );
      }
    },
  };
};

export type BudgetWarning = ReturnType<typeof createBudgetWarning>;
