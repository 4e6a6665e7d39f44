import type { Channel } from '@sluice/contract/schemas/channel';
import { publicConfig } from '@sluice/contract/channel-config';
import type { Selectable } from 'kysely';
import type { ChannelsTable } from '../db/tables.js';

/** Every column but `key`: reads for the console never load the key. */
export const CHANNEL_COLUMNS = [
  'id',
  'type',
  'status',
  'name',
  'weight',
  'created_time',
  'test_time',
  'response_time',
  'base_url',
  'other',
  'balance',
  'balance_updated_time',
  'models',
  'group',
  'used_quota',
  'model_mapping',
  'priority',
  'config',
  'system_prompt',
  'test_model',
] as const satisfies readonly Exclude<keyof ChannelsTable, 'key'>[];

export type ChannelRow = Omit<Selectable<ChannelsTable>, 'key'>;

/** The wire record of a channel: the key is always '' (one-api returned it on update; we never do), and
 * the config comes without its secret fields. */
export const toChannelRecord = (row: ChannelRow): Channel => ({
  id: row.id,
  type: row.type,
  key: '',
  status: row.status,
  name: row.name ?? '',
  weight: row.weight ?? 0,
  created_time: row.created_time ?? 0,
  test_time: row.test_time ?? 0,
  response_time: row.response_time ?? 0,
  base_url: row.base_url ?? '',
  other: row.other ?? '',
  balance: row.balance ?? 0,
  balance_updated_time: row.balance_updated_time ?? 0,
  models: row.models ?? '',
  group: row.group ?? '',
  used_quota: row.used_quota ?? 0,
  model_mapping: row.model_mapping ?? '',
  priority: row.priority ?? 0,
  config: publicConfig(row.config),
  system_prompt: row.system_prompt ?? '',
  test_model: row.test_model ?? '',
});
