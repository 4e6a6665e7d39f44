import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';

/** A create body as the console sends it (including the ignored `groups` array). */
export const channelBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'main',
  type: CHANNEL_TYPE.openAi,
  key: 'sk-fixture-key-0001',
  base_url: '',
  other: '',
  model_mapping: '',
  system_prompt: '',
  models: 'gpt-4o,gpt-4o-mini',
  group: 'default',
  groups: ['default'],
  config: '{}',
  priority: 0,
  weight: 0,
  ...overrides,
});

export interface AbilityFixture {
  readonly group: string;
  readonly model: string;
  readonly channel_id: number;
  readonly enabled: boolean;
  readonly priority: number;
}

/** Every ability row, normalised across dialects (booleans, numbers) and sorted. */
export const readAbilities = async (db: Kysely<Tables>): Promise<AbilityFixture[]> => {
  const rows = await db.selectFrom('abilities').selectAll().execute();
  return rows
    .map((row) => ({
      group: row.group,
      model: row.model,
      channel_id: Number(row.channel_id),
      enabled: row.enabled === true || row.enabled === 1,
      priority: Number(row.priority ?? 0),
    }))
    .sort(
      (a, b) =>
        a.channel_id - b.channel_id ||
        (a.group < b.group ? -1 : a.group > b.group ? 1 : 0) ||
        (a.model < b.model ? -1 : a.model > b.model ? 1 : 0),
    );
};

/** The channels table as stored (keys included), by id. */
export const readChannels = (db: Kysely<Tables>) =>
  db.selectFrom('channels').selectAll().orderBy('id').execute();

/** Row counts of the two tables a channel write touches. */
export const countChannelRows = async (
  db: Kysely<Tables>,
): Promise<{ channels: number; abilities: number }> => ({
  channels: (await db.selectFrom('channels').select('id').execute()).length,
  abilities: (await db.selectFrom('abilities').select('channel_id').execute()).length,
});

/** Empties both tables between tests. */
export const clearChannels = async (db: Kysely<Tables>): Promise<void> => {
  await db.deleteFrom('abilities').execute();
  await db.deleteFrom('channels').execute();
};
