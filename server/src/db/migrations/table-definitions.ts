/**
 * one-api's tables, column by column (names, kinds and defaults as one-api's models declare them),
 * plus Sluice's own tables. Migrations create what is missing and never alter what exists.
 */
export type ColumnKind =
  | { kind: 'id' }
  | { kind: 'int' }
  | { kind: 'bigint' }
  | { kind: 'bool' }
  | { kind: 'float' }
  | { kind: 'text' }
  | { kind: 'varchar'; length: number }
  | { kind: 'char'; length: number };

export interface ColumnDefinition {
  readonly name: string;
  readonly type: ColumnKind;
  readonly notNull?: boolean;
  readonly defaultValue?: string | number | boolean;
}

export interface IndexDefinition {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique?: boolean;
}

export interface TableDefinition {
  readonly name: string;
  readonly columns: readonly ColumnDefinition[];
  /** Composite primary key; tables with an `id` column use it instead. */
  readonly primaryKey?: readonly string[];
  readonly indexes: readonly IndexDefinition[];
}

const id: ColumnDefinition = { name: 'id', type: { kind: 'id' } };
const int = (name: string, defaultValue?: number): ColumnDefinition => ({
  name,
  type: { kind: 'int' },
  ...(defaultValue === undefined ? {} : { defaultValue }),
});
const bigint = (name: string, defaultValue?: number): ColumnDefinition => ({
  name,
  type: { kind: 'bigint' },
  ...(defaultValue === undefined ? {} : { defaultValue }),
});
const bool = (name: string, defaultValue = false): ColumnDefinition => ({
  name,
  type: { kind: 'bool' },
  defaultValue,
});
const text = (name: string): ColumnDefinition => ({ name, type: { kind: 'text' } });
const varchar = (name: string, length: number, defaultValue?: string): ColumnDefinition => ({
  name,
  type: { kind: 'varchar', length },
  ...(defaultValue === undefined ? {} : { defaultValue }),
});
const char = (name: string, length: number): ColumnDefinition => ({ name, type: { kind: 'char', length } });
const index = (table: string, ...columns: string[]): IndexDefinition => ({
  name: `idx_${table}_${columns.join('_')}`,
  columns,
});
const unique = (table: string, column: string): IndexDefinition => ({
  name: `idx_${table}_${column}`,
  columns: [column],
  unique: true,
});

export const ONE_API_TABLES: readonly TableDefinition[] = [
  {
    name: 'users',
    columns: [
      id,
      varchar('username', 191),
      { name: 'password', type: { kind: 'text' }, notNull: true },
      varchar('display_name', 191),
      int('role', 1),
      int('status', 1),
      varchar('email', 191),
      varchar('github_id', 191),
      varchar('wechat_id', 191),
      varchar('lark_id', 191),
      varchar('oidc_id', 191),
      char('access_token', 32),
      bigint('quota', 0),
      bigint('used_quota', 0),
      int('request_count', 0),
      varchar('group', 32, 'default'),
      varchar('aff_code', 32),
      int('inviter_id'),
    ],
    indexes: [
      unique('users', 'username'),
      index('users', 'display_name'),
      index('users', 'email'),
      index('users', 'github_id'),
      index('users', 'wechat_id'),
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
      varchar('name', 191),
      bigint('created_time'),
      bigint('accessed_time'),
      bigint('expired_time', -1),
      bigint('remain_quota', 0),
      bool('unlimited_quota'),
      bigint('used_quota', 0),
      text('models'),
      varchar('subnet', 1024, ''),
    ],
    indexes: [index('tokens', 'user_id'), unique('tokens', 'key'), index('tokens', 'name')],
  },
  {
    name: 'channels',
    columns: [
      id,
      int('type', 0),
      { name: 'key', type: { kind: 'text' }, notNull: true },
      int('status', 1),
      varchar('name', 191),
      int('weight', 0),
      bigint('created_time'),
      bigint('test_time'),
      int('response_time'),
      varchar('base_url', 1024, ''),
      text('other'),
      { name: 'balance', type: { kind: 'float' } },
      bigint('balance_updated_time'),
      text('models'),
      varchar('group', 32, 'default'),
      bigint('used_quota', 0),
      varchar('model_mapping', 1024, ''),
      bigint('priority', 0),
      text('config'),
      text('system_prompt'),
      varchar('test_model', 191),
    ],
    indexes: [index('channels', 'name')],
  },
  {
    name: 'abilities',
    columns: [
      { name: 'group', type: { kind: 'varchar', length: 32 }, notNull: true },
      { name: 'model', type: { kind: 'varchar', length: 191 }, notNull: true },
      { name: 'channel_id', type: { kind: 'int' }, notNull: true },
      bool('enabled'),
      bigint('priority', 0),
    ],
    primaryKey: ['group', 'model', 'channel_id'],
    indexes: [index('abilities', 'channel_id'), index('abilities', 'priority')],
  },
  {
    name: 'options',
    columns: [{ name: 'key', type: { kind: 'varchar', length: 191 }, notNull: true }, text('value')],
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
      varchar('name', 191),
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
    varchar('username', 191, ''),
    varchar('token_name', 191, ''),
    varchar('model_name', 191, ''),
    int('quota', 0),
    int('prompt_tokens', 0),
    int('completion_tokens', 0),
    int('channel_id'),
    varchar('request_id', 191, ''),
    bigint('elapsed_time', 0),
    bool('is_stream'),
    bool('system_prompt_reset'),
  ],
  indexes: [
    index('logs', 'user_id'),
    { name: 'idx_created_at_type', columns: ['created_at', 'type'] },
    index('logs', 'username', 'model_name'),
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
