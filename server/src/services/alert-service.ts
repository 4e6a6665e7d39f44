import {
  ALERT_DELIVERY_HEADER,
  ALERT_EVENT_HEADER,
  ALERT_SIGNATURE_HEADER,
  ALERT_TIMESTAMP_HEADER,
  readAlertWebhooks,
  type AlertDelivery,
  type AlertDeliveryQuery,
  type AlertEvent,
  type AlertWebhook,
  type AlertWebhookView,
} from '@sluice/contract/schemas/alerts';
import { sqlNumber } from '../db/sql-number.js';
import { businessError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { createAlertDeliveries } from './alert-deliveries.js';
import { claimMarker } from './code-store.js';
import { signAlert } from './alert-signature.js';
import type { ServiceDeps } from './service-deps.js';

/** Something that happened, as the server raises it. */
export interface Alert {
  readonly event: Exclude<AlertEvent, 'test'>;
  /** What it is about (a channel's, user's or key's id): the cooldown holds per event and object. */
  readonly objectId: string;
  readonly data: Readonly<Record<string, unknown>>;
  /** Its mail (or message pusher) to whoever one-api tells of it; sent when the alert goes out. */
  readonly mail?: () => Promise<void>;
}

/** The sluice_codes purpose of a cooldown marker: key `<event>:<object>`, expires when it ends. */
export const ALERT_COOLDOWN_PURPOSE = 'alert_cooldown';
/** Each attempt's limit: a receiver that hangs counts as a failed attempt. */
const ATTEMPT_TIMEOUT_MS = 10_000;
const MEMO_LIMIT = 10_000;
/** Days the delivery log keeps a row (the hourly job removes older ones). */
export const ALERT_DELIVERY_RETENTION_DAYS = 30;
const STOPPED = 'the server shut down before the next attempt';

const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
};

/**
 * A webhook's URL as the console and the delivery log show it: its origin only (a Slack-style URL
 * carries its secret in the path, and the AlertWebhooks option is never answered).
 */
export const shownUrl = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname === '/' && parsed.search === '' ? '/' : '/…'}`;
};

const receives = (hook: AlertWebhook, event: AlertEvent): boolean =>
  !hook.events || hook.events.length === 0 || hook.events.includes(event);

interface AttemptResult {
  readonly ok: boolean;
  readonly code: number;
  readonly error: string;
}

/**
 * Alerts: a cooldown per event and object (AlertCooldownMinutes, a marker in sluice_codes so it
 * holds across instances and restarts, memoised here), then the event's mail and a signed POST to
 * every webhook of AlertWebhooks that takes the event, retried AlertWebhookAttempts times with
 * waits doubling from AlertRetryBaseSeconds, each delivery a row of sluice_alert_deliveries.
 * `raise` never throws: a failure is logged and recorded; callers run it in the background.
 */
export const createAlertService = (deps: ServiceDeps) => {
  const { db, options, logger } = deps;
  const deliveries = createAlertDeliveries(db, deps.dialect);
  /** `<event>:<object>` → until when this instance knows it to be quiet (Unix seconds). */
  const quietUntil = new Map<string, number>();
  /** Aborted on shutdown: a wait between attempts ends at once and no attempt follows. */
  const stopping = new AbortController();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      if (stopping.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        stopping.signal.removeEventListener('abort', done);
        resolve();
      }
      stopping.signal.addEventListener('abort', done);
    });

  const webhooks = (): AlertWebhook[] => {
    const read = readAlertWebhooks(options.values.AlertWebhooks);
    if (!read.ok) logger.warn({ reason: read.message }, 'AlertWebhooks unreadable: no webhook is called');
    return read.ok ? read.hooks : [];
  };

  /** Whether the alert may go out now; if so, the cooldown starts (one instance wins a race). */
  const claimCooldown = async (key: string): Promise<boolean> => {
    const minutes = options.values.AlertCooldownMinutes;
    if (minutes <= 0) return true;
    const now = nowSeconds();
    if ((quietUntil.get(key) ?? 0) > now) return false;
    const until = now + Math.round(minutes * 60);
    const claimed = await claimMarker(db, deps.dialect, {
      purpose: ALERT_COOLDOWN_PURPOSE,
      key,
      expiresAt: until,
      now,
    });
    const held = claimed
      ? until
      : sqlNumber(
          (
            await db
              .selectFrom('sluice_codes')
              .select('expires_at')
              .where('purpose', '=', ALERT_COOLDOWN_PURPOSE)
              .where('key', '=', key)
              .executeTakeFirst()
          )?.expires_at,
        );
    if (quietUntil.size >= MEMO_LIMIT) quietUntil.clear();
    quietUntil.set(key, held);
    return claimed;
  };

  const attempt = async (
    hook: AlertWebhook,
    id: number,
    event: string,
    body: string,
  ): Promise<AttemptResult> => {
    const timestamp = nowSeconds();
    try {
      const response = await fetch(hook.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Sluice-Alerts/1',
          [ALERT_EVENT_HEADER]: event,
          [ALERT_DELIVERY_HEADER]: String(id),
          [ALERT_TIMESTAMP_HEADER]: String(timestamp),
          [ALERT_SIGNATURE_HEADER]: signAlert(hook.secret, timestamp, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(ATTEMPT_TIMEOUT_MS), stopping.signal]),
      });
      await response.body?.cancel();
      const ok = response.status >= 200 && response.status < 300;
      return { ok, code: response.status, error: ok ? '' : `the receiver answered HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, code: 0, error: reasonOf(error) };
    }
  };

  /** One delivery to one webhook: up to `attempts` tries, the row updated after each. */
  const deliver = async (
    hook: AlertWebhook,
    event: AlertEvent,
    objectId: string,
    body: string,
    attempts: number,
  ): Promise<number> => {
    const id = await deliveries.start({ event, objectId, webhook: hook.name, url: shownUrl(hook.url), body });
    for (let tried = 1; ; tried += 1) {
      const result = await attempt(hook, id, event, body);
      const last = result.ok || tried >= attempts;
      const outcome = { attempts: tried, responseCode: result.code, error: result.error };
      await deliveries.record(id, {
        ...outcome,
        status: result.ok ? 'delivered' : last ? 'failed' : 'pending',
      });
      if (last) break;
      await pause(options.values.AlertRetryBaseSeconds * 1000 * 2 ** (tried - 1));
      if (stopping.signal.aborted) {
        await deliveries.record(id, { ...outcome, status: 'failed', error: `${result.error} (${STOPPED})` });
        break;
      }
    }
    return id;
  };

  const bodyOf = (event: AlertEvent, data: Readonly<Record<string, unknown>>): string =>
    JSON.stringify({ event, at: nowSeconds(), data });

  const logged =
    (what: string, context: Record<string, unknown>) =>
    (error: unknown): void =>
      logger.error({ ...context, reason: reasonOf(error) }, what);

  return {
    /** Sends the alert unless its cooldown holds; resolves when every delivery is done (never rejects). */
    raise: async (alert: Alert): Promise<void> => {
      const context = { event: alert.event, objectId: alert.objectId };
      try {
        if (!(await claimCooldown(`${alert.event}:${alert.objectId}`))) return;
      } catch (error) {
        logged('alert cooldown unreadable: alert dropped', context)(error);
        return;
      }
      const body = bodyOf(alert.event, alert.data);
      const attempts = options.values.AlertWebhookAttempts;
      await Promise.all([
        alert.mail?.().catch(logged('alert mail failed', context)),
        ...webhooks()
          .filter((hook) => receives(hook, alert.event))
          .map((hook) =>
            deliver(hook, alert.event, alert.objectId, body, attempts).catch(
              logged('alert webhook delivery failed', { ...context, webhook: hook.name }),
            ),
          ),
      ]);
    },
    /** The configured webhooks without their secrets, their URLs as shownUrl shows them. */
    webhooks: (): AlertWebhookView[] =>
      webhooks().map((hook) => ({ name: hook.name, url: shownUrl(hook.url), events: hook.events ?? [] })),
    /** A `test` event to the named webhook, one attempt, recorded like any delivery; its row. */
    sendTest: async (name: string, by: string): Promise<AlertDelivery> => {
      const hook = webhooks().find((candidate) => candidate.name === name);
      if (!hook) throw businessError(`no webhook named ${name}`);
      const body = bodyOf('test', { webhook: hook.name, sent_by: by });
      const id = await deliver(hook, 'test', '', body, 1);
      const row = await deliveries.get(id);
      if (!row) throw businessError('the delivery was not recorded');
      return row;
    },
    /** On shutdown: waits between attempts end, an attempt in flight is aborted, none follows. */
    stop: (): void => stopping.abort(),
    /** The hourly job: delivery rows older than ALERT_DELIVERY_RETENTION_DAYS. */
    purgeExpired: () => deliveries.purgeBefore(nowSeconds() - ALERT_DELIVERY_RETENTION_DAYS * 86_400),
    list: (query: AlertDeliveryQuery) => deliveries.list(query, query.p, query.size),
    count: (query: AlertDeliveryQuery) => deliveries.count(query),
  };
};

export type AlertService = ReturnType<typeof createAlertService>;
