import { QUOTA_ALERT_FIELDS } from '@sluice/contract/schemas/quota-alerts';
import {
  bigint,
  bool,
  char,
  id,
  index,
  indexedString,
  int,
  shortText,
  text,
  unique,
  varchar,
  type ColumnDefinition,
  type TableDefinition,
} from './table-schema.js';

export type { ColumnDefinition, ColumnKind, IndexDefinition, TableDefinition } from './table-schema.js';

/**
 * one-api's tables, column by column as one-api v0.6.9's models declare them (their gorm tags:
 * Go type, size, default, index), so that GORM's AutoMigrate finds nothing to change; plus Sluice's
 * own tables. Migrations create what is missing and never alter what exists (but 0005).
 */
export const ONE_API_TABLES: readonly TableDefinition[] = [
  {
    name: 'users',
    columns: [
      id,
      indexedString('username'),
      { name: 'password', type: { kind: 'text' }, notNull: true },
      indexedString('display_name'),
      int('role', 1),
      int('status', 1),
      indexedString('email'),
      indexedString('github_id'),
      indexedString('wechat_id'),
      indexedString('lark_id'),
      indexedString('oidc_id'),
      char('access_token', 32),
      bigint('quota', 0),
      bigint('used_quota', 0),
      int('request_count', 0),
      varchar('group', 32, 'default'),
      varchar('aff_code', 32),
      int('inviter_id'),
    ],
    // `gorm:"unique;index"`: the constraint uni_users_username beside a plain idx_users_username.
    uniqueColumns: ['username'],
    indexes: [
      index('users', 'username'),
      index('users', 'display_name'),
      index('users', 'email'),
      // GORM names an index after the Go field (GitHubId, WeChatId), not the column.
      { name: 'idx_users_git_hub_id', columns: ['github_id'] },
      { name: 'idx_users_we_chat_id', columns: ['wechat_id'] },
      index('users', 'lark_id'),
      index('users', 'oidc_id'),
      unique('users', 'access_token'),
      unique('users', 'aff_code'),
      index('users', 'inviter_id'),
    ],
  },
  {
    name: 'tokens',
    columns: [
      id,
      int('user_id'),
      char('key', 48),
      int('status', 1),
      indexedString('name'),
      bigint('created_time'),
      bigint('accessed_time'),
      bigint('expired_time', -1),
      bigint('remain_quota', 0),
      bool('unlimited_quota'),
      bigint('used_quota', 0),
      shortText('models'),
      indexedString('subnet', ''),
    ],
    // idx_tokens_user_id is Sluice's (a user's keys); GORM leaves an index it does not know alone.
    indexes: [index('tokens', 'user_id'), unique('tokens', 'key'), index('tokens', 'name')],
  },
  {
    name: 'channels',
    columns: [
      id,
      int('type', 0),
      shortText('key'),
      int('status', 1),
      indexedString('name'),
      { name: 'weight', type: { kind: 'uint' }, defaultValue: 0 },
      bigint('created_time'),
      bigint('test_time'),
      int('response_time'),
      indexedString('base_url', ''),
      text('other'),
      { name: 'balance', type: { kind: 'float' } },
      bigint('balance_updated_time'),
      text('models'),
      varchar('group', 32, 'default'),
      bigint('used_quota', 0),
      varchar('model_mapping', 1024, ''),
      bigint('priority', 0),
      text('config'),
      shortText('system_prompt'),
      // Not in one-api v0.6.9's model: GORM ignores a column it does not know.
      varchar('test_model', 191),
    ],
    indexes: [index('channels', 'name')],
  },
  {
    name: 'abilities',
    columns: [
      // A primary key's columns are NOT NULL on MySQL and PostgreSQL without saying so; GORM does not say it.
      varchar('group', 32),
      indexedString('model'),
      int('channel_id'),
      { name: 'enabled', type: { kind: 'bool' } },
      bigint('priority', 0),
    ],
    primaryKey: ['group', 'model', 'channel_id'],
    indexes: [index('abilities', 'channel_id'), index('abilities', 'priority')],
  },
  {
    name: 'options',
    columns: [indexedString('key'), text('value')],
    primaryKey: ['key'],
    indexes: [],
  },
  {
    name: 'redemptions',
    columns: [
      id,
      int('user_id'),
      char('key', 32),
      int('status', 1),
      indexedString('name'),
      bigint('quota', 100),
      bigint('created_time'),
      bigint('redeemed_time'),
    ],
    indexes: [unique('redemptions', 'key'), index('redemptions', 'name')],
  },
];

export const LOGS_TABLE: TableDefinition = {
  name: 'logs',
  columns: [
    id,
    int('user_id'),
    bigint('created_at'),
    int('type'),
    text('content'),
    indexedString('username', ''),
    indexedString('token_name', ''),
    indexedString('model_name', ''),
    int('quota', 0),
    int('prompt_tokens', 0),
    int('completion_tokens', 0),
    int('channel_id'),
    indexedString('request_id', ''),
    bigint('elapsed_time', 0),
    bool('is_stream'),
    bool('system_prompt_reset'),
  ],
  indexes: [
    index('logs', 'user_id'),
    { name: 'idx_created_at_type', columns: ['created_at', 'type'] },
    // `index:index_username_model_name,priority:2` on username, priority 1 on model_name.
    { name: 'index_username_model_name', columns: ['model_name', 'username'] },
    index('logs', 'token_name'),
    index('logs', 'model_name'),
    index('logs', 'channel_id'),
  ],
};

/**
 * Sluice's own columns of one-api's logs table, added to a table one-api made (one-api ignores
 * columns it does not know): the client format of a consumption row (`openai`, `anthropic`,
 * `responses`, `gemini`; NULL on rows one-api or an older Sluice wrote).
 */
export const LOG_CLIENT_FORMAT_COLUMNS: readonly ColumnDefinition[] = [varchar('client_format', 32)];

/**
 * Sluice's own column of the logs table: a consumption row's routing decision (JSON: the strategy,
 * whether affinity chose the channel, each attempt's channel, key, status, reason and time). A
 * nullable column without a default: added in place on a table of millions of rows (SQLite and
 * PostgreSQL change only the schema, MySQL 8 and MariaDB 10.3 add it instantly); NULL on rows
 * one-api or an older Sluice wrote.
 */
export const LOG_ROUTING_COLUMNS: readonly ColumnDefinition[] = [text('routing')];

/**
 * Sluice's rate limits and budgets, on tokens and on users alike (migration 0007): nullable, so a
 * one-api row has none and one-api's GORM ignores the columns.
 */
export const LIMIT_COLUMNS: readonly ColumnDefinition[] = [
  'rpm_limit',
  'tpm_limit',
  'concurrency_limit',
  'budget_5h',
  'budget_daily',
  'budget_weekly',
  'budget_monthly',
].map((name) => bigint(name));

/** A user's own quota alert thresholds (migration 0014): nullable, null on a one-api row (the site's). */
export const QUOTA_ALERT_COLUMNS: readonly ColumnDefinition[] = QUOTA_ALERT_FIELDS.map((name) =>
  bigint(name),
);

export const SLUICE_TABLES: readonly TableDefinition[] = [
  {
    name: 'sluice_sessions',
    columns: [
      { name: 'id', type: { kind: 'varchar', length: 64 }, notNull: true },
      { name: 'user_id', type: { kind: 'int' }, notNull: true, defaultValue: 0 },
      text('data'),
      bigint('created_at'),
      bigint('expires_at'),
    ],
    primaryKey: ['id'],
    indexes: [index('sluice_sessions', 'user_id'), index('sluice_sessions', 'expires_at')],
  },
  {
    name: 'sluice_codes',
    columns: [
      { name: 'purpose', type: { kind: 'varchar', length: 16 }, notNull: true },
      { name: 'key', type: { kind: 'varchar', length: 191 }, notNull: true },
      { name: 'code', type: { kind: 'varchar', length: 128 }, notNull: true },
      bigint('expires_at'),
    ],
    primaryKey: ['purpose', 'key'],
    indexes: [index('sluice_codes', 'expires_at')],
  },
];

/** Sluice's own tables for billing that survives a crash: instance leases, reservations, written journal ranges. */
export const BILLING_TABLES: readonly TableDefinition[] = [
  {
    name: 'sluice_instances',
    columns: [
      { name: 'id', type: { kind: 'varchar', length: 64 }, notNull: true },
      varchar('host', 255, ''),
      int('pid', 0),
      bigint('started_at', 0),
      bigint('lease_until', 0),
    ],
    primaryKey: ['id'],
    indexes: [],
  },
  {
    name: 'sluice_reservations',
    columns: [
      { name: 'id', type: { kind: 'varchar', length: 64 }, notNull: true },
      varchar('instance_id', 64, ''),
      int('user_id', 0),
      int('token_id', 0),
      bool('unlimited'),
      bigint('quota', 0),
      bigint('created_at', 0),
      bigint('released_at', 0),
    ],
    primaryKey: ['id'],
    // No secondary index: concurrent reservations would contend for its one hot gap (MySQL locks
    // it). The table holds only what is in flight, and recovery reads it rarely.
    indexes: [],
  },
  {
    name: 'sluice_settled',
    columns: [
      { name: 'instance_id', type: { kind: 'varchar', length: 64 }, notNull: true },
      { name: 'seq_from', type: { kind: 'bigint' }, notNull: true },
      bigint('seq_to', 0),
      bigint('created_at', 0),
    ],
    primaryKey: ['instance_id', 'seq_from'],
    indexes: [index('sluice_settled', 'created_at')],
  },
];
