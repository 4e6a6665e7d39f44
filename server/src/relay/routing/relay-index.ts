import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { CompiledQuery, type Kysely, type Selectable } from 'kysely';
import { toBool } from '../../db/database.js';
import type { ChannelsTable, Tables, TokensTable } from '../../db/tables.js';
import type { ChangeFeed } from '../../services/change-feed.js';
import type { TokenRow } from '../../services/token-record.js';
import type { UserRow } from '../../services/user-record.js';
import { RATE_LIMIT_FIELDS } from '@sluice/contract/schemas/limits';
import { QUOTA_ALERT_FIELDS } from '@sluice/contract/schemas/quota-alerts';
import { sameAlertThresholds, sameRateLimits, splitList } from './index-rows.js';

export type ChannelRow = Selectable<ChannelsTable>;

export interface RoutableChannel {
  readonly row: ChannelRow;
  readonly priority: number;
  readonly weight: number;
}

/**
 * How long a key the database did not have is refused from memory (a flood of a bad key costs no
 * query a request). A key Sluice creates is 48 random characters nobody asked for before; a key
 * change through Sluice clears its entry on every instance (the change feed); a key written into the
 * database behind Sluice's back is seen within this bound, as status changes are
 * (STATUS_CHECK_FREQUENCY, 5 s by default).
 */
export const UNKNOWN_KEY_MS = 5_000;
const MAX_UNKNOWN_KEYS = 100_000;

/** Ids per query when the cached keys and users are checked against the database. */
const REVALIDATE_CHUNK = 500;

/**
 * In-memory indexes of what every relay request reads: keys, users and the routing table
 * (group → model → enabled channels, by priority). Entries are dropped on every change the change
 * feed reports (this instance at once, the others through Redis), so a console write takes effect on
 * the next request; nothing waits for a timer.
 */
export const createRelayIndex = (db: Kysely<Tables>, changes: ChangeFeed) => {
  const tokens = new Map<string, TokenRow>();
  /** Keys the database did not have, when it said so: refused from memory for a few seconds. */
  const unknown = new Map<string, number>();
  /** Lookups in flight: requests with the same key share one query. */
  const looking = new Map<string, Promise<TokenRow | undefined>>();
  const users = new Map<number, UserRow>();
  /** The key lookup's SQL, compiled once (a flood of bad keys costs a query each, not a compile too). */
  const byKey = db.selectFrom('tokens').selectAll().where('key', '=', '').compile();
  let routes: Map<string, Map<string, RoutableChannel[]>> | undefined;
  let channelsById: Map<number, ChannelRow> | undefined;
  let building: Promise<void> | undefined;
  let generation = 0;

  const buildRoutes = async (): Promise<void> => {
    const started = generation;
    const rows = await db.selectFrom('channels').selectAll().execute();
    if (started !== generation) return;
    const byId = new Map<number, ChannelRow>();
    const table = new Map<string, Map<string, RoutableChannel[]>>();
    for (const row of rows) {
      byId.set(row.id, row);
      if (row.status !== CHANNEL_STATUS.enabled) continue;
      const entry = { row, priority: row.priority ?? 0, weight: row.weight ?? 0 };
      for (const group of splitList(row.group)) {
        const models = table.get(group) ?? new Map<string, RoutableChannel[]>();
        table.set(group, models);
        for (const model of splitList(row.models)) {
          const list = models.get(model) ?? [];
          list.push(entry);
          models.set(model, list);
        }
      }
    }
    for (const models of table.values())
      for (const list of models.values()) list.sort((left, right) => right.priority - left.priority);
    routes = table;
    channelsById = byId;
  };

  const ensureRoutes = async (): Promise<void> => {
    while (!routes || !channelsById) {
      building ??= buildRoutes().finally(() => {
        building = undefined;
      });
      await building;
    }
  };

  changes.on((change) => {
    if (change.kind === 'token') {
      if (typeof change.id === 'string') {
        tokens.delete(change.id);
        unknown.delete(change.id);
      } else {
        tokens.clear();
        unknown.clear();
      }
    } else if (change.kind === 'user') {
      if (typeof change.id === 'number') users.delete(change.id);
      else users.clear();
      for (const [key, token] of tokens)
        if (change.id === undefined || token.user_id === change.id) tokens.delete(key);
    } else if (change.kind === 'channel') {
      generation += 1;
      routes = undefined;
      channelsById = undefined;
    }
  });

  /**
   * Drops what changed in the database behind Sluice's back (another tool, a hand-written UPDATE):
   * the cached keys and users whose status or access fields differ, and the routing table when a
   * channel's status, priority, weight, models or groups do. One small query per table (keys and
   * users by the ids in memory, in chunks), so it can run every few seconds.
   */
  const revalidate = async (): Promise<void> => {
    const cachedTokens = [...tokens.values()];
    for (let start = 0; start < cachedTokens.length; start += REVALIDATE_CHUNK) {
      const chunk = cachedTokens.slice(start, start + REVALIDATE_CHUNK);
      const rows = await db
        .selectFrom('tokens')
        .select([
          'id',
          'key',
          'status',
          'expired_time',
          'unlimited_quota',
          'models',
          'subnet',
          'user_id',
          ...RATE_LIMIT_FIELDS,
        ])
        .where(
          'id',
          'in',
          chunk.map((token) => token.id),
        )
        .execute();
      const fresh = new Map(rows.map((row) => [row.id, row]));
      for (const token of chunk) {
        const row = fresh.get(token.id);
        if (
          !row ||
          row.key !== token.key ||
          row.status !== token.status ||
          row.expired_time !== token.expired_time ||
          toBool(row.unlimited_quota) !== token.unlimited_quota ||
          (row.models ?? '') !== (token.models ?? '') ||
          (row.subnet ?? '') !== (token.subnet ?? '') ||
          row.user_id !== token.user_id ||
          !sameRateLimits(row, token)
        )
          tokens.delete(token.key);
      }
    }
    const cachedUsers = [...users.values()];
    for (let start = 0; start < cachedUsers.length; start += REVALIDATE_CHUNK) {
      const chunk = cachedUsers.slice(start, start + REVALIDATE_CHUNK);
      const rows = await db
        .selectFrom('users')
        .select(['id', 'status', 'group', 'role', ...RATE_LIMIT_FIELDS, ...QUOTA_ALERT_FIELDS])
        .where(
          'id',
          'in',
          chunk.map((user) => user.id),
        )
        .execute();
      const fresh = new Map(rows.map((row) => [row.id, row]));
      for (const user of chunk) {
        const row = fresh.get(user.id);
        if (
          !row ||
          row.status !== user.status ||
          row.group !== user.group ||
          row.role !== user.role ||
          !sameRateLimits(row, user) ||
          !sameAlertThresholds(row, user)
        )
          users.delete(user.id);
      }
    }
    const known = channelsById;
    if (!known) return;
    const started = generation;
    const rows = await db
      .selectFrom('channels')
      .select(['id', 'status', 'priority', 'weight', 'models', 'group'])
      .execute();
    if (started !== generation) return;
    const differs =
      rows.length !== known.size ||
      rows.some((row) => {
        const cached = known.get(row.id);
        return (
          !cached ||
          cached.status !== row.status ||
          cached.priority !== row.priority ||
          cached.weight !== row.weight ||
          cached.models !== row.models ||
          cached.group !== row.group
        );
      });
    if (differs) {
      generation += 1;
      routes = undefined;
      channelsById = undefined;
    }
  };

  const lookUp = async (key: string): Promise<TokenRow | undefined> => {
    const { rows } = await db.executeQuery<Selectable<TokensTable>>(CompiledQuery.raw(byKey.sql, [key]));
    const row = rows[0];
    if (!row) {
      // Bounded: a flood of made-up keys starts the list over rather than growing it.
      if (unknown.size >= MAX_UNKNOWN_KEYS) unknown.clear();
      unknown.set(key, performance.now());
      return undefined;
    }
    const token = { ...row, unlimited_quota: toBool(row.unlimited_quota) };
    tokens.set(key, token);
    return token;
  };

  /** True when the database said moments ago it has no such key: refused without a promise. */
  const knownUnknown = (key: string): boolean => {
    const missed = unknown.get(key);
    return missed !== undefined && performance.now() - missed < UNKNOWN_KEY_MS;
  };

  return {
    revalidate,
    /** The cached key, or undefined when it is not in memory (then ask `token`): no await on a hit. */
    peekToken: (key: string): TokenRow | undefined => tokens.get(key),
    knownUnknown,
    /** The cached user, or undefined when not in memory (then ask `user`). */
    peekUser: (id: number): UserRow | undefined => users.get(id),
    /** The candidates when the routing table is built, else undefined (then ask `candidates`). */
    peekCandidates: (group: string, model: string): readonly RoutableChannel[] | undefined =>
      routes ? (routes.get(group)?.get(model) ?? []) : undefined,
    token: (key: string): Promise<TokenRow | undefined> => {
      const cached = tokens.get(key);
      if (cached) return Promise.resolve(cached);
      if (knownUnknown(key)) return Promise.resolve(undefined);
      unknown.delete(key);
      let lookup = looking.get(key);
      if (!lookup) {
        lookup = lookUp(key).finally(() => looking.delete(key));
        looking.set(key, lookup);
      }
      return lookup;
    },
    user: async (id: number): Promise<UserRow | undefined> => {
      const cached = users.get(id);
      if (cached) return cached;
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      if (row) users.set(id, row);
      return row;
    },
    /** Enabled channels serving a model for a group, highest priority first. */
    candidates: async (group: string, model: string): Promise<readonly RoutableChannel[]> => {
      await ensureRoutes();
      return routes?.get(group)?.get(model) ?? [];
    },
    channel: async (id: number): Promise<ChannelRow | undefined> => {
      await ensureRoutes();
      return channelsById?.get(id);
    },
    /** Models a group may use (enabled channels), sorted. */
    groupModels: async (group: string): Promise<string[]> => {
      await ensureRoutes();
      return [...(routes?.get(group)?.keys() ?? [])].sort();
    },
    /** Keeps a cached token's counters in step with what this instance just billed. */
    forgetToken: (key: string): void => {
      tokens.delete(key);
    },
  };
};

export type RelayIndex = ReturnType<typeof createRelayIndex>;
