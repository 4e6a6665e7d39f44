import { alertThresholdOf, isBelowAlertThreshold } from '@sluice/contract/schemas/quota-alerts';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { escapeHtml } from '../lib/html.js';
import type { Alert } from './alert-service.js';
import type { Mailer } from './mailer.js';
import type { OptionStore } from './option-store.js';
import { formatLogQuota } from './quota-text.js';
import type { TokenRow } from './token-record.js';

const MEMO_LIMIT = 100_000;

export interface KeyQuotaAlertDeps {
  readonly db: Kysely<Tables>;
  readonly options: OptionStore;
  readonly mailer: Mailer;
  readonly raise: (alert: Alert) => Promise<void>;
  readonly track: (work: Promise<unknown>) => void;
}

/**
 * A key with a limited quota whose remaining quota, less the coming request's estimate, falls below
 * its owner's token_alert_threshold (migration 0014; 0: off) or else QuotaRemindThreshold: a
 * `token.quota_low` alert (mail to the key's owner, the webhooks) when this instance sees it cross,
 * under the alert cooldown. Synchronous on the relay's path: it only compares with what it last saw
 * of the key; the alert runs in the background.
 */
export const createKeyQuotaAlerts = (deps: KeyQuotaAlertDeps) => {
  /** key id → whether it was below the threshold when last seen. */
  const below = new Map<number, boolean>();

  const mail = async (token: TokenRow, remaining: number): Promise<void> => {
    const user = await deps.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', token.user_id)
      .executeTakeFirst();
    const email = user?.email?.trim() ?? '';
    if (email === '') return;
    const left = escapeHtml(formatLogQuota(Math.max(remaining, 0), deps.options.values));
    const subject =
      remaining <= 0 ? 'Your key has run out of quota' : 'Your key is about to run out of quota';
    await deps.mailer.send(
      email,
      subject,
      `<p>${subject}: key ${escapeHtml(token.name ?? '')} (#${token.id}) has ${left} left.</p>`,
    );
  };

  return {
    /** `own`: the owner's token_alert_threshold (null: QuotaRemindThreshold; 0: off). */
    observe: (token: TokenRow, estimate: number, own: number | null = null): void => {
      if (token.unlimited_quota) return;
      const remaining = token.remain_quota - estimate;
      const threshold = alertThresholdOf(own, deps.options.values.QuotaRemindThreshold);
      const low = isBelowAlertThreshold(remaining, threshold);
      if (below.get(token.id) === low) return;
      if (below.size >= MEMO_LIMIT) below.clear();
      below.set(token.id, low);
      if (!low) return;
      deps.track(
        deps.raise({
          event: 'token.quota_low',
          objectId: String(token.id),
          data: {
            token_id: token.id,
            name: token.name ?? '',
            user_id: token.user_id,
            remain_quota: token.remain_quota,
            remaining,
            threshold,
          },
          mail: () => mail(token, remaining),
        }),
      );
    },
  };
};
