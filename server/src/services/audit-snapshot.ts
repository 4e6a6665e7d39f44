import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import { isOptionKey } from '@sluice/contract/option-keys';
import type { AuditObject } from '@sluice/contract/schemas/audit';
import type { Kysely } from 'kysely';
import { sqlNumber } from '../db/sql-number.js';
import type { Tables } from '../db/tables.js';
import type { OptionStore } from './option-store.js';

type Plain = Record<string, unknown>;

/** Reads one object's fields as they are now (secrets included: the audit service masks them). */
type SnapshotReader = (id: string) => Promise<unknown>;

const byId = (id: string): number | undefined => (/^\d{1,15}$/.test(id) ? Number(id) : undefined);

/** The option keys of an audit row's object id: one key, or a batch's keys joined by commas. */
export const optionKeysOf = (id: string): string[] => id.split(',').filter((key) => key !== '');

/**
 * The fields of an object as an audit row records them: the whole row of a channel, user or
 * redemption; the values of the options named (a batch's keys joined by commas).
 */
export const createAuditSnapshots = (db: Kysely<Tables>, options: OptionStore) => {
  const optionValue = (key: string): unknown => {
    if (isOptionKey(key)) return options.values[key];
    return options.listPublic().find((option) => option.key === key)?.value;
  };
  const readers: Partial<Record<AuditObject, SnapshotReader>> = {
    channel: async (id) => {
      const numeric = byId(id);
      if (numeric === undefined) return null;
      return (
        (await db.selectFrom('channels').selectAll().where('id', '=', numeric).executeTakeFirst()) ?? null
      );
    },
    user: async (id) => {
      const numeric = byId(id);
      if (numeric === undefined) return null;
      return (await db.selectFrom('users').selectAll().where('id', '=', numeric).executeTakeFirst()) ?? null;
    },
    redemption: async (id) => {
      const numeric = byId(id);
      if (numeric === undefined) return null;
      return (
        (await db.selectFrom('redemptions').selectAll().where('id', '=', numeric).executeTakeFirst()) ?? null
      );
    },
    two_factor: async (id) => {
      const numeric = byId(id);
      if (numeric === undefined) return null;
      const totp = await db
        .selectFrom('sluice_totp')
        .select('confirmed_at')
        .where('user_id', '=', numeric)
        .executeTakeFirst();
      const codes = await db
        .selectFrom('sluice_recovery_codes')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('user_id', '=', numeric)
        .executeTakeFirst();
      const passkeys = await db
        .selectFrom('sluice_passkeys')
        .select('name')
        .where('user_id', '=', numeric)
        .orderBy('id')
        .execute();
      return {
        totp: sqlNumber(totp?.confirmed_at ?? 0) > 0,
        recovery_codes: sqlNumber(codes?.count),
        passkeys: passkeys.map((row) => row.name),
      };
    },
    option: (id) => {
      const values: Plain = {};
      for (const key of optionKeysOf(id)) values[key] = optionValue(key);
      return Promise.resolve(values);
    },
  };

  return {
    /** The object's fields now; null when it does not exist or its kind has none. */
    read: async (object: AuditObject, id: string): Promise<unknown> => (await readers[object]?.(id)) ?? null,
    /** The user id of a username ('' when there is none). */
    userIdOf: async (username: string): Promise<string> => {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where('username', '=', username)
        .executeTakeFirst();
      return row ? String(row.id) : '';
    },
    /** The automatically or manually disabled channels (what "delete every disabled channel" removes). */
    disabledChannels: () =>
      db
        .selectFrom('channels')
        .select(['id', 'name', 'type', 'status'])
        .where('status', 'in', [CHANNEL_STATUS.manuallyDisabled, CHANNEL_STATUS.autoDisabled])
        .orderBy('id')
        .execute(),
  };
};

export type AuditSnapshots = ReturnType<typeof createAuditSnapshots>;

/**
 * Only the entries a change touched, for objects on both sides (a ratio map holds hundreds of
 * models; its row should show the few that changed). Other values are kept whole.
 */
export const changedEntries = (before: unknown, after: unknown): { before: unknown; after: unknown } => {
  const plain = (value: unknown): value is Plain =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!plain(before) || !plain(after)) return { before, after };
  const narrowedBefore: Plain = {};
  const narrowedAfter: Plain = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [left, right] = [before[key], after[key]];
    if (JSON.stringify(left) === JSON.stringify(right)) continue;
    const inner = changedEntries(left, right);
    if (key in before) narrowedBefore[key] = inner.before;
    if (key in after) narrowedAfter[key] = inner.after;
  }
  return { before: narrowedBefore, after: narrowedAfter };
};
