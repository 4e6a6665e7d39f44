import type { User } from '@sluice/contract/schemas/user';
import type { Selectable } from 'kysely';
import type { UsersTable } from '../db/tables.js';
import { limitValuesOf } from './limit-record.js';

export type UserRow = Selectable<UsersTable>;

const nullableNumber = (value: number | string | null | undefined): number | null =>
  value === null || value === undefined ? null : Number(value);

/** The wire record of a user: never the password hash; the access token only for its owner. */
export const toUserRecord = (row: UserRow, options: { withAccessToken: boolean }): User => ({
  id: row.id,
  username: row.username,
  password: '',
  display_name: row.display_name ?? '',
  role: row.role,
  status: row.status,
  email: row.email ?? '',
  github_id: row.github_id ?? '',
  wechat_id: row.wechat_id ?? '',
  lark_id: row.lark_id ?? '',
  oidc_id: row.oidc_id ?? '',
  verification_code: '',
  access_token: options.withAccessToken ? (row.access_token ?? '') : '',
  quota: row.quota,
  used_quota: row.used_quota,
  request_count: row.request_count,
  group: row.group,
  aff_code: row.aff_code ?? '',
  inviter_id: row.inviter_id ?? 0,
  ...limitValuesOf(row),
  quota_alert_threshold: nullableNumber(row.quota_alert_threshold),
  token_alert_threshold: nullableNumber(row.token_alert_threshold),
});

/** The login answer: one-api fills only id, username, display_name, role and status. */
export const toLoginRecord = (row: UserRow): User => ({
  ...toUserRecord(row, { withAccessToken: false }),
  email: '',
  github_id: '',
  wechat_id: '',
  lark_id: '',
  oidc_id: '',
  quota: 0,
  used_quota: 0,
  request_count: 0,
  group: '',
  aff_code: '',
  inviter_id: 0,
});
