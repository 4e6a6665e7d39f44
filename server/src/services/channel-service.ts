import {
  splitChannelKeys,
  type Channel,
  type CreateChannelRequest,
  type UpdateChannelRequest,
} from '@sluice/contract/schemas/channel';
import { composedKey, mergedConfig } from '@sluice/contract/channel-config';
import { withStoredKeyStates } from '@sluice/contract/channel-keys';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import type { SelectQueryBuilder, Transaction, Updateable } from 'kysely';
import { executeInsertId } from '../db/insert-id.js';
import { prefixMatch } from '../db/prefix-match.js';
import type { ChannelsTable, Tables } from '../db/tables.js';
import { businessError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { availableModels, rebuildAbilities, servedModels } from './abilities.js';
import type { ChangeFeed } from './change-feed.js';
import { CHANNEL_COLUMNS, toChannelRecord, type ChannelRow } from './channel-record.js';
import { countOf, ITEMS_PER_PAGE, pageOffset } from './paging.js';
import type { ServiceDeps } from './service-deps.js';

export const CHANNEL_NOT_FOUND = 'channel does not exist';

const DISABLED_STATUSES = [CHANNEL_STATUS.manuallyDisabled, CHANNEL_STATUS.autoDisabled];
/** Ids per `IN (…)` list when deleting in bulk. */
const CHUNK = 500;

interface StoredChannel {
  readonly type: number;
  readonly config: string | null;
}

/**
 * The fields of an update body that are written: every one present. An empty key keeps the key, and
 * a secret config field left blank keeps its value; the key states (`disabled_keys`) are the stored ones. Without a key, a key composed from config fields
 * (AWS, Vertex AI) is composed again from the config as saved, so a new region reaches it too.
 */
const changesOf = (input: UpdateChannelRequest, stored: StoredChannel): Updateable<ChannelsTable> => {
  const { id: _id, key, config, ...fields } = input;
  const changes: Updateable<ChannelsTable> = key === '' ? fields : { ...fields, key };
  if (config === undefined) return changes;
  const saved = withStoredKeyStates(stored.config, mergedConfig(stored.config, config));
  const composed = key === '' ? composedKey(input.type ?? stored.type, saved) : undefined;
  return composed === undefined
    ? { ...changes, config: saved }
    : { ...changes, config: saved, key: composed };
};

/**
 * Channels (one-api §3.7) and their abilities, the routing index of the relay. Every write rebuilds
 * the abilities in its own transaction and then tells every instance through the change feed.
 */
export const createChannelService = (deps: ServiceDeps, changes: ChangeFeed) => {
  const { db, dialect } = deps;

  const notify = (id?: number): Promise<void> =>
    changes.emit(id === undefined ? { kind: 'channel' } : { kind: 'channel', id });

  /** Row locks on PostgreSQL and MySQL (SQLite has one writer and no FOR UPDATE). */
  const locked = <O>(query: SelectQueryBuilder<Tables, 'channels', O>) =>
    dialect === 'sqlite' ? query : query.forUpdate();

  const selectChannels = () => db.selectFrom('channels').select(CHANNEL_COLUMNS);

  const list = async (page: number, size: number = ITEMS_PER_PAGE): Promise<Channel[]> => {
    const rows = await selectChannels()
      .orderBy('id', 'desc')
      .limit(size)
      .offset(pageOffset(page, size))
      .execute();
    return rows.map(toChannelRecord);
  };

  /** How many channels there are (the pager's total). */
  const count = async (): Promise<number> =>
    countOf(
      await db
        .selectFrom('channels')
        .select((eb) => eb.fn.countAll().as('count'))
        .executeTakeFirst(),
    );

  /** `id = keyword` when the keyword is a number, or a literal name prefix; not paginated. */
  const search = async (keyword: string): Promise<Channel[]> => {
    const rows = await selectChannels()
      .where((eb) =>
        /^\d{1,15}$/.test(keyword)
          ? eb.or([eb('id', '=', Number(keyword)), prefixMatch('name', keyword)])
          : prefixMatch('name', keyword),
      )
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toChannelRecord);
  };

  const get = async (id: number): Promise<Channel> => {
    const row = await selectChannels().where('id', '=', id).executeTakeFirst();
    if (!row) throw businessError(CHANNEL_NOT_FOUND);
    return toChannelRecord(row);
  };

  /** One channel per non-empty line of the key, identical otherwise, all in one transaction. */
  const create = async (input: CreateChannelRequest): Promise<number[]> => {
    const keys = splitChannelKeys(input.key);
    if (keys.length === 0) throw businessError('channel key is required');
    const { key: _keys, ...settings } = input;
    const now = nowSeconds();
    const ids = await db.transaction().execute(async (trx) => {
      const created: number[] = [];
      for (const key of keys) {
        const values = {
          ...settings,
          key,
          created_time: now,
          test_time: 0,
          response_time: 0,
          balance: 0,
          balance_updated_time: 0,
          used_quota: 0,
        };
        const id = await executeInsertId(dialect, trx.insertInto('channels').values(values));
        await rebuildAbilities(trx, { ...values, id });
        created.push(id);
      }
      return created;
    });
    await notify(ids.length === 1 ? ids[0] : undefined);
    return ids;
  };

  const readLocked = async (trx: Transaction<Tables>, id: number): Promise<StoredChannel> => {
    const row = await locked(
      trx.selectFrom('channels').select(['id', 'type', 'config']).where('id', '=', id),
    ).executeTakeFirst();
    if (!row) throw businessError(CHANNEL_NOT_FOUND);
    return { type: row.type, config: row.config };
  };

  /** Writes the fields present (see `changesOf`), then rebuilds the abilities from the saved row. */
  const update = async (input: UpdateChannelRequest): Promise<Channel> => {
    const saved = await db.transaction().execute(async (trx): Promise<ChannelRow> => {
      const stored = await readLocked(trx, input.id);
      const fields = changesOf(input, stored);
      if (Object.values(fields).some((value) => value !== undefined))
        await trx.updateTable('channels').set(fields).where('id', '=', input.id).execute();
      const row = await trx
        .selectFrom('channels')
        .select(CHANNEL_COLUMNS)
        .where('id', '=', input.id)
        .executeTakeFirstOrThrow();
      await rebuildAbilities(trx, row);
      return row;
    });
    await notify(input.id);
    return toChannelRecord(saved);
  };

  /** Deletes the channel and its abilities. */
  const remove = async (id: number): Promise<void> => {
    await db.transaction().execute(async (trx) => {
      await readLocked(trx, id);
      await trx.deleteFrom('abilities').where('channel_id', '=', id).execute();
      await trx.deleteFrom('channels').where('id', '=', id).execute();
    });
    await notify(id);
  };

  /** Deletes every channel of status 2 or 3 with its abilities (one-api left those behind); the count. */
  const removeDisabled = async (): Promise<number> => {
    const count = await db.transaction().execute(async (trx) => {
      const rows = await locked(
        trx.selectFrom('channels').select('id').where('status', 'in', DISABLED_STATUSES),
      ).execute();
      const ids = rows.map((row) => row.id);
      let deleted = 0;
      for (let start = 0; start < ids.length; start += CHUNK) {
        const chunk = ids.slice(start, start + CHUNK);
        await trx.deleteFrom('abilities').where('channel_id', 'in', chunk).execute();
        const result = await trx
          .deleteFrom('channels')
          .where('id', 'in', chunk)
          .where('status', 'in', DISABLED_STATUSES)
          .executeTakeFirst();
        deleted += Number(result.numDeletedRows);
      }
      return deleted;
    });
    if (count > 0) await notify();
    return count;
  };

  return {
    list,
    count,
    search,
    get,
    create,
    update,
    remove,
    removeDisabled,
    /** Sorted distinct models a group can use (enabled abilities only). */
    availableModels: (group: string): Promise<string[]> => availableModels(db, group),
    servedModels: (): Promise<string[]> => servedModels(db),
  };
};

export type ChannelService = ReturnType<typeof createChannelService>;
