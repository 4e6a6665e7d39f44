import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Dialect } from '../db/dsn.js';
import type { Tables } from '../db/tables.js';
import { alertThresholdOf, isBelowAlertThreshold } from '@sluice/contract/schemas/quota-alerts';
import type { Alert } from './alert-service.js';
import { escapeHtml } from '../lib/html.js';
import { serverAddressOf } from './account-mail-service.js';
import type { ChangeFeed } from './change-feed.js';
import { claimMarker } from './code-store.js';
import type { Mailer } from './mailer.js';
import type { ServiceDeps } from './service-deps.js';
import { formatLogQuota } from './quota-text.js';
import type { UserRow } from './user-record.js';

/** The marker row of a reminded user in sluice_codes: purpose, key = user id; it never expires. */
export const REMINDED_PURPOSE = 'quota_remind';
const NEVER = 253402300799; // 9999-12-31T23:59:59Z: purgeExpired never removes a marker
const MEMO_LIMIT = 100_000;

export interface QuotaReminderDeps {
  readonly db: Kysely<Tables>;
  readonly dialect: Dialect;
  readonly options: ServiceDeps['options'];
  readonly config: ServiceDeps['config'];
  readonly changes: ChangeFeed;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly track: (work: Promise<unknown>) => void;
  /** Raises the reminder as an alert to the webhooks (under the alert cooldown; the mail stays once per crossing). */
  readonly raise?: (alert: Alert) => Promise<void>;
}

/** What the reminder reads of a user: the relay's cached row has it (no database read per request). */
export type RemindedUser = Pick<UserRow, 'id' | 'quota_alert_threshold'>;

/**
 * Mails a user whose quota falls below their own threshold (quota_alert_threshold, migration 0014)
 * or else QuotaRemindThreshold, once per crossing; a user who turned it off (0) is never reminded.
 * Whether the user was reminded is a marker row in the database (so it survives restarts and holds
 * across instances): claimed atomically when the quota is seen below the threshold (only the claim
 * that inserts it mails), removed when the quota is seen at or above it again (re-armed). Each instance memoises
 * what it knows of the markers, so the relay's hot path does no database work in the steady state;
 * claims and removals are broadcast as user changes, which drop the other instances' memo entries.
 */
export const createQuotaReminder = (deps: QuotaReminderDeps) => {
  const { db } = deps;
  /** user id → whether a marker exists, as last seen or written by this instance. */
  const known = new Map<number, boolean>();
  deps.changes.on((change) => {
    if (change.kind !== 'user') return;
    if (typeof change.id === 'number') known.delete(change.id);
    else known.clear();
  });
  const remember = (userId: number, marked: boolean) => {
    if (known.size >= MEMO_LIMIT) known.clear();
    known.set(userId, marked);
  };

  const claim = (userId: number): Promise<boolean> =>
    claimMarker(db, deps.dialect, { purpose: REMINDED_PURPOSE, key: String(userId), expiresAt: NEVER });

  const rearm = async (userId: number): Promise<boolean> => {
    const result = await db
      .deleteFrom('sluice_codes')
      .where('purpose', '=', REMINDED_PURPOSE)
      .where('key', '=', String(userId))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  };

  const mail = async (userId: number, quota: number, remaining: number): Promise<void> => {
    const user = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
    const email = user?.email?.trim() ?? '';
    if (email === '') return;
    const values = deps.options.values;
    const prompt = remaining <= 0 ? 'Your quota has run out' : 'Your quota is about to run out';
    const link = escapeHtml(`${serverAddressOf(deps)}/topup`);
    await deps.mailer.send(
      email,
      prompt,
      [
        `<p>${prompt}: your remaining quota is ${escapeHtml(formatLogQuota(quota, values))}.`,
        'To keep using the service without interruption, please top up in time.</p>',
        `<p>Top-up link: <a href="${link}">${link}</a></p>`,
      ].join('\n'),
    );
  };

  const settle = async (
    userId: number,
    below: boolean,
    quota: number,
    remaining: number,
    threshold: number | undefined,
  ) => {
    if (below) {
      const claimed = await claim(userId);
      if (claimed) await deps.changes.emit({ kind: 'user', id: userId });
      remember(userId, true);
      if (!claimed) return;
      // The mail is one-api's, once per crossing (a crossing needs a top-up between: no flood);
      // the webhooks hear of it under the alert cooldown.
      await Promise.all([
        mail(userId, quota, remaining),
        deps.raise?.({
          event: 'user.quota_low',
          objectId: String(userId),
          data: { user_id: userId, quota, remaining, threshold },
        }),
      ]);
    } else {
      const removed = await rearm(userId);
      if (removed) await deps.changes.emit({ kind: 'user', id: userId });
      remember(userId, false);
    }
  };

  return {
    /**
     * Told the user's quota and what the coming request is estimated to cost, before each relay
     * request. Synchronous: any database work and the mail run in the background.
     */
    observe: (user: RemindedUser, quota: number, cost: number): void => {
      const userId = user.id;
      const remaining = quota - cost;
      const threshold = alertThresholdOf(
        user.quota_alert_threshold,
        deps.options.values.QuotaRemindThreshold,
      );
      const below = isBelowAlertThreshold(remaining, threshold);
      if (known.get(userId) === below) return;
      deps.track(
        settle(userId, below, quota, remaining, threshold).catch((error: unknown) =>
          deps.logger.error(
            { userId, reason: error instanceof Error ? error.message : String(error) },
            'quota reminder failed',
          ),
        ),
      );
    },
  };
};

export type QuotaReminder = ReturnType<typeof createQuotaReminder>;
