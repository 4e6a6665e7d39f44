import { CHANNEL_STATUS, LOG_TYPE } from '@sluice/contract/statuses';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.js';
import type { ChangeFeed } from '../services/change-feed.js';
import { writeLog } from '../services/log-writer.js';

/** A channel the program disabled or re-enabled, as an alert tells of it. */
export interface ChannelMove {
  readonly event: 'channel.disabled' | 'channel.enabled';
  readonly channelId: number;
  readonly name: string;
  readonly reason: string;
  /** Root's message: its title and text. */
  readonly title: string;
  readonly content: string;
}

/**
 * Automatic channel status moves: disable (status 3, abilities off) and re-enable (only channels
 * that were disabled automatically), each with a system log row for root and a change broadcast.
 */
export const createChannelStatus = (deps: {
  db: Kysely<Tables>;
  logDb: Kysely<Tables>;
  changes: ChangeFeed;
  logger: Logger;
  /** Tells root (message pusher, else email); returns at once, delivery runs in the background. */
  notifyRoot?: (title: string, content: string) => void;
  /**
   * Raises the move as an alert instead (root's message under the alert's cooldown, and the
   * webhooks); returns at once. When given, notifyRoot is left to it.
   */
  alert?: (move: ChannelMove) => void;
}) => {
  const move = async (
    channelId: number,
    from: readonly number[],
    to: number,
    reason: string,
  ): Promise<boolean> => {
    const moved = await deps.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('channels')
        .set({ status: to })
        .where('id', '=', channelId)
        .where('status', 'in', [...from])
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await trx
        .updateTable('abilities')
        .set({ enabled: to === CHANNEL_STATUS.enabled })
        .where('channel_id', '=', channelId)
        .execute();
      return true;
    });
    if (!moved) return false;
    const channel = await deps.db
      .selectFrom('channels')
      .select('name')
      .where('id', '=', channelId)
      .executeTakeFirst();
    const root = await deps.db
      .selectFrom('users')
      .select(['id', 'username'])
      .where('role', '>=', 100)
      .orderBy('id')
      .executeTakeFirst();
    const verb = to === CHANNEL_STATUS.enabled ? 'enabled' : 'disabled';
    const content = `channel ${channel?.name ?? ''} (#${channelId}) was ${verb} automatically: ${reason}`;
    deps.logger.warn({ channelId, reason }, `channel ${verb} automatically`);
    if (root)
      await writeLog(deps.logDb, {
        userId: root.id,
        username: root.username,
        type: LOG_TYPE.system,
        content,
      });
    await deps.changes.emit({ kind: 'channel', id: channelId });
    const title = `channel ${channel?.name ?? ''} (#${channelId}) was ${verb}`;
    if (deps.alert) {
      const event = to === CHANNEL_STATUS.enabled ? 'channel.enabled' : 'channel.disabled';
      deps.alert({ event, channelId, name: channel?.name ?? '', reason, title, content });
    } else deps.notifyRoot?.(title, content);
    return true;
  };
  return {
    disable: (channelId: number, reason: string) =>
      move(channelId, [CHANNEL_STATUS.enabled], CHANNEL_STATUS.autoDisabled, reason),
    /** Only channels the program disabled come back; a manual disable stays. */
    enable: (channelId: number) =>
      move(channelId, [CHANNEL_STATUS.autoDisabled], CHANNEL_STATUS.enabled, 'the test succeeded'),
  };
};

export type ChannelStatus = ReturnType<typeof createChannelStatus>;
