import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { Alert } from './alert-service.js';

/** A breaker transition (relay/routing/channel-breaker.ts tells them). */
export type BreakerMove =
  | {
      readonly kind: 'cooled_down';
      readonly channelId: number;
      /** The failures in a row that opened it. */
      readonly failures: number;
      /** When the cooldown ends, Unix seconds. */
      readonly until: number;
    }
  | { readonly kind: 'recovered'; readonly channelId: number };

export interface BreakerAlertDeps {
  readonly db: Kysely<Tables>;
  readonly raise: (alert: Alert) => Promise<void>;
  readonly track: (work: Promise<unknown>) => void;
}

/**
 * The breaker's transitions as alerts: `channel.cooled_down` when a channel's breaker opens,
 * `channel.recovered` when a probe closes it, with the channel's name read from the database.
 * Synchronous for the breaker: the alert runs in the background, under the alert cooldown.
 */
export const createBreakerAlerts =
  (deps: BreakerAlertDeps) =>
  (move: BreakerMove): void => {
    const raise = async () => {
      const row = await deps.db
        .selectFrom('channels')
        .select('name')
        .where('id', '=', move.channelId)
        .executeTakeFirst();
      const base = { channel_id: move.channelId, name: row?.name ?? '' };
      await deps.raise(
        move.kind === 'cooled_down'
          ? {
              event: 'channel.cooled_down',
              objectId: String(move.channelId),
              data: {
                ...base,
                failures: move.failures,
                until: move.until,
                reason: `${move.failures} failures in a row: passed over until ${new Date(move.until * 1000).toISOString()}`,
              },
            }
          : {
              event: 'channel.recovered',
              objectId: String(move.channelId),
              data: { ...base, reason: 'the probe after the cooldown answered' },
            },
      );
    };
    deps.track(raise().catch(() => undefined));
  };
