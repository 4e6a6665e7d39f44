import type { Token } from '@sluice/contract/schemas/token';
import type { Selectable } from 'kysely';
import { toBool } from '../db/database.js';
import type { TokensTable } from '../db/tables.js';
import { limitValuesOf } from './limit-record.js';

export type TokenRow = Selectable<TokensTable>;

/** The wire record of a token (its owner's view: the key without `sk-`). */
export const toTokenRecord = (row: TokenRow): Token => ({
  id: row.id,
  user_id: row.user_id,
  key: row.key,
  status: row.status,
  name: row.name ?? '',
  created_time: row.created_time,
  accessed_time: row.accessed_time,
  expired_time: row.expired_time,
  remain_quota: row.remain_quota,
  unlimited_quota: toBool(row.unlimited_quota),
  used_quota: row.used_quota,
  models: row.models ?? '',
  subnet: row.subnet ?? '',
  ...limitValuesOf(row),
});
