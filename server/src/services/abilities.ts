import { CHANNEL_LIMITS, splitCommaList } from '@sluice/contract/schemas/channel';
import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { AbilitiesTable, Tables } from '../db/tables.js';

/** What the abilities of a channel are built from. */
export interface AbilitySource {
  readonly id: number;
  readonly group: string | null;
  readonly models: string | null;
  readonly status: number;
  readonly priority: number | null;
}

/** Rows per multi-row insert: 5 parameters each, well under every driver's parameter limit. */
const CHUNK = 500;

/**
 * One row per (group × model) of the channel: both comma lists trimmed, de-duplicated, empty
 * entries dropped; enabled mirrors status 1; the channel's priority is copied.
 */
export const abilityRows = (channel: AbilitySource): Insertable<AbilitiesTable>[] => {
  const groups = splitCommaList(channel.group ?? '').filter(
    (group) => group.length <= CHANNEL_LIMITS.groupMax,
  );
  const models = splitCommaList(channel.models ?? '').filter(
    (model) => model.length <= CHANNEL_LIMITS.modelNameMax,
  );
  const enabled = channel.status === CHANNEL_STATUS.enabled;
  const priority = channel.priority ?? 0;
  return groups.flatMap((group) =>
    models.map((model) => ({ group, model, channel_id: channel.id, enabled, priority })),
  );
};

/** Deletes and re-inserts the channel's abilities; call it inside the transaction that wrote the channel. */
export const rebuildAbilities = async (trx: Transaction<Tables>, channel: AbilitySource): Promise<void> => {
  await trx.deleteFrom('abilities').where('channel_id', '=', channel.id).execute();
  const rows = abilityRows(channel);
  for (let start = 0; start < rows.length; start += CHUNK) {
    await trx
      .insertInto('abilities')
      .values(rows.slice(start, start + CHUNK))
      .execute();
  }
};

/** Sorted distinct model names of the enabled abilities of one group. */
export const availableModels = async (db: Kysely<Tables>, group: string): Promise<string[]> => {
  const rows = await db
    .selectFrom('abilities')
    .select('model')
    .distinct()
    .where('group', '=', group)
    .where('enabled', '=', true)
    .execute();
  return [...new Set(rows.map((row) => row.model))].sort();
};

/**
 * Sorted distinct model names of every channel, enabled or not (a disabled channel may be enabled
 * again, and then its models are billed): the console's "models without a ratio".
 */
export const servedModels = async (db: Kysely<Tables>): Promise<string[]> => {
  const rows = await db.selectFrom('abilities').select('model').distinct().execute();
  return [...new Set(rows.map((row) => row.model))].sort();
};
