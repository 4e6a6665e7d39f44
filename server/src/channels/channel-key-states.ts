import { jsonObjectOf } from '@sluice/contract/channel-config';
import {
  channelKeysOf,
  disabledKeysOf,
  maskedKey,
  type ChannelKeyState,
  type DisabledKey,
} from '@sluice/contract/channel-keys';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Tables } from '../db/tables.js';
import { keyIdOf } from '../relay/routing/channel-keys.js';
import type { ChangeFeed } from '../services/change-feed.js';

/**
 * The states of a channel's several keys, kept in its config's `disabled_keys` (key id → reason
 * and time; one-api's columns keep their meaning, and a one-api build ignores the field). Every
 * write reads the config afresh under a row lock, forgets the ids of keys no longer in the channel,
 * and broadcasts the change, so every instance's routing index reads the new state.
 */
export const createChannelKeyStates = (deps: {
  db: Kysely<Tables>;
  dialect: 'sqlite' | 'postgres' | 'mysql';
  changes: ChangeFeed;
  logger: Logger;
  now?: () => number;
}) => {
  const now = deps.now ?? (() => Math.floor(Date.now() / 1000));

  const rewrite = async (
    channelId: number,
    change: (ids: readonly string[], disabled: Record<string, DisabledKey>) => boolean,
  ): Promise<boolean> => {
    const changed = await deps.db.transaction().execute(async (trx: Transaction<Tables>) => {
      const query = trx.selectFrom('channels').select(['type', 'key', 'config']).where('id', '=', channelId);
      const row = await (deps.dialect === 'sqlite' ? query : query.forUpdate()).executeTakeFirst();
      if (!row) return false;
      const config = jsonObjectOf(row.config);
      const ids = channelKeysOf(row.type, row.key).map(keyIdOf);
      const disabled = Object.fromEntries(
        Object.entries(disabledKeysOf(config)).filter(([id]) => ids.includes(id)),
      );
      if (!change(ids, disabled)) return false;
      const { disabled_keys: _before, ...rest } = config;
      const next = Object.keys(disabled).length === 0 ? rest : { ...rest, disabled_keys: disabled };
      await trx
        .updateTable('channels')
        .set({ config: JSON.stringify(next) })
        .where('id', '=', channelId)
        .execute();
      return true;
    });
    if (changed) await deps.changes.emit({ kind: 'channel', id: channelId });
    return changed;
  };

  return {
    /** Disables one key (a refusal the rule names); false when it is not the channel's or already off. */
    disable: async (channelId: number, keyId: string, reason: string): Promise<boolean> => {
      const done = await rewrite(channelId, (ids, disabled) => {
        if (!ids.includes(keyId) || disabled[keyId] !== undefined) return false;
        disabled[keyId] = { reason: reason.slice(0, 512), at: now() };
        return true;
      });
      if (done) deps.logger.warn({ channelId, keyId, reason }, 'channel key disabled automatically');
      return done;
    },
    /** Enables one key again; false when it is not the channel's or was not disabled. */
    enable: (channelId: number, keyId: string): Promise<boolean> =>
      rewrite(channelId, (_ids, disabled) => {
        if (disabled[keyId] === undefined) return false;
        delete disabled[keyId];
        return true;
      }),
    /** The channel's keys, masked, with their states; undefined when there is no such channel. */
    list: async (channelId: number): Promise<ChannelKeyState[] | undefined> => {
      const row = await deps.db
        .selectFrom('channels')
        .select(['type', 'key', 'config'])
        .where('id', '=', channelId)
        .executeTakeFirst();
      if (!row) return undefined;
      const disabled = disabledKeysOf(jsonObjectOf(row.config));
      return channelKeysOf(row.type, row.key).map((key, index) => {
        const id = keyIdOf(key);
        const off = disabled[id];
        return {
          index,
          id,
          masked: maskedKey(key),
          enabled: off === undefined,
          reason: off?.reason ?? '',
          disabled_at: off?.at ?? 0,
        };
      });
    },
  };
};

export type ChannelKeyStates = ReturnType<typeof createChannelKeyStates>;
