import type { ColumnType, Generated } from 'kysely';

/** Column types of one-api's tables (plus Sluice's own), as Kysely sees them. */
type Id = Generated<number>;
/** Booleans are 0/1 on SQLite and MySQL and true/false on PostgreSQL. */
type DbBool = ColumnType<boolean | number, boolean, boolean>;

export interface UsersTable {
  id: Id;
  username: string;
  password: string;
  display_name: string | null;
  role: number;
  status: number;
  email: string | null;
  github_id: string | null;
  wechat_id: string | null;
  lark_id: string | null;
  oidc_id: string | null;
  access_token: string | null;
  quota: number;
  used_quota: number;
  request_count: number;
  group: string;
  aff_code: string | null;
  inviter_id: number | null;
  /** Sluice's own (migration 0007): rate limits and budgets, null when unset. */
  rpm_limit: number | null;
  tpm_limit: number | null;
  concurrency_limit: number | null;
  budget_5h: number | null;
  budget_daily: number | null;
  budget_weekly: number | null;
  budget_monthly: number | null;
  /** Sluice's own (migration 0014): the user's quota alert thresholds (null: the site's; 0: off). */
  quota_alert_threshold: number | null;
  token_alert_threshold: number | null;
}

export interface TokensTable {
  id: Id;
  user_id: number;
  key: string;
  status: number;
  name: string | null;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: DbBool;
  used_quota: number;
  models: string | null;
  subnet: string | null;
  /** Sluice's own (migration 0007): rate limits and budgets, null when unset. */
  rpm_limit: number | null;
  tpm_limit: number | null;
  concurrency_limit: number | null;
  budget_5h: number | null;
  budget_daily: number | null;
  budget_weekly: number | null;
  budget_monthly: number | null;
}

export interface ChannelsTable {
  id: Id;
  type: number;
  key: string;
  status: number;
  name: string | null;
  weight: number | null;
  created_time: number;
  test_time: number | null;
  response_time: number | null;
  base_url: string | null;
  other: string | null;
  balance: number | null;
  balance_updated_time: number | null;
  models: string | null;
  group: string;
  used_quota: number;
  model_mapping: string | null;
  priority: number | null;
  config: string | null;
  system_prompt: string | null;
  test_model: string | null;
}

export interface AbilitiesTable {
  group: string;
  model: string;
  channel_id: number;
  enabled: DbBool;
  priority: number | null;
}

export interface OptionsTable {
  key: string;
  value: string | null;
}

export interface RedemptionsTable {
  id: Id;
  user_id: number;
  key: string;
  status: number;
  name: string | null;
  quota: number;
  created_time: number;
  redeemed_time: number;
}

export interface LogsTable {
  id: Id;
  user_id: number;
  created_at: number;
  type: number;
  content: string | null;
  username: string | null;
  token_name: string | null;
  model_name: string | null;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  channel_id: number;
  request_id: string | null;
  elapsed_time: number;
  is_stream: DbBool;
  system_prompt_reset: DbBool;
  /** Sluice's own (migration 0004): the request's client format; NULL on rows one-api wrote. */
  client_format: string | null;
  /** Sluice's own (migration 0013): the request's attempts, strategy and affinity (JSON); NULL otherwise. */
  routing: string | null;
}

/** Sluice's own: server-side sessions, so a logout revokes the cookie on every instance. */
export interface SessionsTable {
  id: string;
  user_id: number;
  data: string;
  created_at: number;
  expires_at: number;
}

/** Sluice's own: single-use codes (email verification, password reset, OAuth state) shared by all instances. */
export interface CodesTable {
  purpose: string;
  key: string;
  code: string;
  expires_at: number;
}

/** Sluice's own: one row per running instance, its lease renewed while it lives (billing recovery). */
export interface InstancesTable {
  id: string;
  host: string;
  pid: number;
  /** Milliseconds since the epoch. */
  started_at: number;
  /** Milliseconds since the epoch: past it, the instance is taken for dead and its reservations are released. */
  lease_until: number;
}

/** Sluice's own: quota taken before a call, held until the request settles or is released. */
export interface ReservationsTable {
  id: string;
  instance_id: string;
  user_id: number;
  token_id: number;
  unlimited: DbBool;
  quota: number;
  created_at: number;
  /** 0 while held; the time (seconds) it was given back by recovery (a tombstone: a late settlement charges in full). */
  released_at: number;
}

/** Sluice's own: which journal entries of an instance are written (so a replay writes none twice). */
export interface SettledTable {
  instance_id: string;
  seq_from: number;
  seq_to: number;
  created_at: number;
}

/** Sluice's own (migration 0008): who changed what through /api, and every sign-in; append-only. */
export interface AuditLogTable {
  id: Id;
  created_at: number;
  user_id: number;
  username: string;
  role: number;
  ip: string;
  action: string;
  object_type: string;
  object_id: string;
  /** JSON of the object's fields before the change, secrets masked; null when there was none. */
  before: string | null;
  /** JSON of the object's fields after the change, secrets masked; null when there is none. */
  after: string | null;
  detail: string;
}

/** Sluice's own (0009): a user's TOTP secret; confirmed_at 0 while the user has not confirmed it with a code. */
export interface TotpTable {
  user_id: number;
  secret: string;
  confirmed_at: number;
  /** The last time step whose code was accepted: a code is never accepted twice. */
  last_step: number;
  /** Wrong codes in a row; at TWO_FACTOR_MAX_FAILURES the user's two-factor sign-in locks. */
  failures: number;
  locked_until: number;
}

/** Sluice's own (0009): single-use recovery codes, stored as SHA-256 hashes. */
export interface RecoveryCodesTable {
  user_id: number;
  code_hash: string;
}

/** Sluice's own (0010): WebAuthn credentials (passkeys), each a sign-in on its own or a second factor. */
export interface PasskeysTable {
  id: Id;
  user_id: number;
  /** The credential id (base64url), unique. */
  credential_id: string;
  name: string;
  /** The COSE public key (base64url). */
  public_key: string;
  counter: number;
  /** Comma-separated transports the authenticator named (usb, internal, hybrid…). */
  transports: string;
  backed_up: number;
  created_at: number;
  last_used_at: number;
}

/** Sluice's own (0011): one alert webhook delivery and how it went. */
export interface AlertDeliveriesTable {
  id: Id;
  created_at: number;
  updated_at: number;
  event: string;
  /** What the alert is about: a channel's, user's or key's id ('' for a test). */
  object_id: string;
  /** The webhook's name and its URL when the delivery was made. */
  webhook: string;
  url: string;
  status: string;
  attempts: number;
  /** The last attempt's HTTP status (0: no answer). */
  response_code: number;
  last_error: string;
  /** The JSON body that was signed and sent. */
  body: string | null;
}

/** Sluice's own (migration 0012): a budgeted key's or user's spending per quarter hour. */
export interface BudgetUsageTable {
  /** 'u' (a user) or 't' (a key). */
  subject: string;
  subject_id: number;
  /** The quarter hour's start, Unix seconds. */
  bucket: number;
  /** Spent: the estimates of requests in flight and the real cost of those answered. */
  used: number;
  /** Room the relay's instances hold for their next requests, not yet spent (budget-slices.ts). */
  held: Generated<number>;
}

export interface Tables {
  users: UsersTable;
  tokens: TokensTable;
  channels: ChannelsTable;
  abilities: AbilitiesTable;
  options: OptionsTable;
  redemptions: RedemptionsTable;
  logs: LogsTable;
  sluice_sessions: SessionsTable;
  sluice_codes: CodesTable;
  sluice_instances: InstancesTable;
  sluice_reservations: ReservationsTable;
  sluice_settled: SettledTable;
  sluice_audit_log: AuditLogTable;
  sluice_totp: TotpTable;
  sluice_recovery_codes: RecoveryCodesTable;
  sluice_passkeys: PasskeysTable;
  sluice_alert_deliveries: AlertDeliveriesTable;
  sluice_budget_usage: BudgetUsageTable;
}
