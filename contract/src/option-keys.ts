import { ROUTING_STRATEGIES } from './routing-strategies.js';

/**
 * The option table: every runtime setting stored in the `options` table, with its kind, its
 * default (as the string one-api stores) and whether it is secret (never sent to the browser).
 */
export type OptionKind = 'bool' | 'int' | 'float' | 'string' | 'json';

export interface OptionDefinition {
  readonly kind: OptionKind;
  readonly defaultValue: string;
  readonly secret?: boolean;
  /** Allowed values, for enumerations such as Theme. */
  readonly choices?: readonly string[];
}

const bool = (value: boolean) => ({ kind: 'bool', defaultValue: String(value) }) as const;
const int = (value: number) => ({ kind: 'int', defaultValue: String(value) }) as const;
const float = (value: number) => ({ kind: 'float', defaultValue: String(value) }) as const;
const text = (value = '') => ({ kind: 'string', defaultValue: value }) as const;
const secret = () => ({ kind: 'string', defaultValue: '', secret: true }) as const;
const json = (value: string) => ({ kind: 'json', defaultValue: value }) as const;

export const DEFAULT_EMAIL_DOMAIN_WHITELIST =
  'gmail.com,163.com,126.com,qq.com,outlook.com,hotmail.com,icloud.com,yahoo.com,foxmail.com';

export const OPTION_DEFINITIONS = {
  PasswordLoginEnabled: bool(true),
  PasswordRegisterEnabled: bool(true),
  RegisterEnabled: bool(true),
  EmailVerificationEnabled: bool(false),
  EmailDomainRestrictionEnabled: bool(false),
  EmailDomainWhitelist: text(DEFAULT_EMAIL_DOMAIN_WHITELIST),
  GitHubOAuthEnabled: bool(false),
  GitHubClientId: text(),
  GitHubClientSecret: secret(),
  LarkClientId: text(),
  LarkClientSecret: secret(),
  WeChatAuthEnabled: bool(false),
  WeChatServerAddress: text(),
  WeChatServerToken: secret(),
  WeChatAccountQRCodeImageURL: text(),
  TurnstileCheckEnabled: bool(false),
  TurnstileSiteKey: text(),
  TurnstileSecretKey: secret(),
  MessagePusherAddress: text(),
  MessagePusherToken: secret(),
  SMTPServer: text(),
  SMTPPort: int(587),
  SMTPAccount: text(),
  SMTPFrom: text(),
  SMTPToken: secret(),
  ServerAddress: text(),
  SystemName: text('Sluice'),
  Logo: text(),
  Footer: text(),
  Notice: text(),
  About: text(),
  HomePageContent: text(),
  Theme: { kind: 'string', defaultValue: 'default', choices: ['default', 'berry', 'air'] } as const,
  TopUpLink: text(),
  ChatLink: text(),
  QuotaForNewUser: int(0),
  QuotaForInviter: int(0),
  QuotaForInvitee: int(0),
  QuotaRemindThreshold: int(1000),
  PreConsumedQuota: int(500),
  QuotaPerUnit: float(500000),
  RetryTimes: int(0),
  ChannelDisableThreshold: float(5),
  // The channel breaker (relay/routing/channel-breaker.ts): this many failures in a row within the
  // window cool a channel down for the cooldown, then one request probes it; 0 failures: off.
  ChannelBreakerFailures: int(5),
  ChannelBreakerWindowSeconds: int(60),
  ChannelBreakerCooldownSeconds: int(60),
  /** Sluice's own: how a priority tier's channels share requests (relay/routing/select-channel.ts). */
  RoutingStrategy: { kind: 'string', defaultValue: 'weighted_random', choices: ROUTING_STRATEGIES } as const,
  /** Sluice's own: a strategy per group, over RoutingStrategy (JSON: {"vip": "least_in_flight"}). */
  GroupRoutingStrategies: text('{}'),
  /** Sluice's own: requests of one conversation go to the channel (and key) that answered its last one. */
  ConversationAffinityEnabled: bool(false),
  /** Sluice's own: seconds a conversation stays pinned after its last request. */
  ConversationAffinityTtlSeconds: int(300),
  AutomaticDisableChannelEnabled: bool(false),
  AutomaticEnableChannelEnabled: bool(false),
  LogConsumeEnabled: bool(true),
  DisplayInCurrencyEnabled: bool(true),
  DisplayTokenStatEnabled: bool(true),
  ApproximateTokenEnabled: bool(false),
  ModelRatio: json('{}'),
  CompletionRatio: json('{}'),
  GroupRatio: json('{"default":1,"vip":1,"svip":1}'),
  /** Sluice's own: the price of prompt tokens read from a provider's cache, per model (× the input price). */
  CacheReadRatio: json('{}'),
  /** Sluice's own: the price of prompt tokens written to a provider's cache, per model (× the input price). */
  CacheWriteRatio: json('{}'),
  /** Sluice's own: visitors who are not signed in may read the price list (GET /api/pricing, the Pricing page). */
  PricingPublic: bool(false),
  /** Sluice's own: days the audit log keeps its rows (0: forever); root's alone, as who may erase a trail. */
  AuditLogRetentionDays: int(0),
  /** Sluice's own: administrators must sign in with a second factor (their access tokens are unaffected). */
  TwoFactorRequiredForAdmins: bool(false),
  /** OpenID Connect sign-in (one-api's keys): on, the client, and the issuer (or its discovery document's URL). */
  OidcEnabled: bool(false),
  OidcClientId: text(),
  OidcClientSecret: secret(),
  OidcWellKnown: text(),
  /** Sluice's own: the scopes asked for, space-separated. */
  OidcScopes: text('openid profile email'),
  /** Sluice's own: the claim whose value names a new user. */
  OidcUsernameClaim: text('preferred_username'),
  /** Sluice's own: the email domains that may sign in, comma-separated (empty: any). */
  OidcAllowedDomains: text(),
  /** Sluice's own: the claim holding the user's groups at the provider, and which Sluice group each one maps to (JSON). */
  OidcGroupClaim: text(),
  OidcGroupMapping: text('{}'),
  /** Sluice's own: whether a first OpenID Connect sign-in may create its user (RegisterEnabled must allow it too). */
  OidcRegisterEnabled: bool(true),
  /** Sluice's own: rate limits per group, shared by the group's users (JSON: {"vip": {"rpm": 60, "tpm": 100000, "concurrency": 5}}). */
  GroupRateLimits: text('{}'),
  /** Sluice's own: with Redis away, refuse limited requests (503) rather than let them through unlimited. */
  RateLimitFailClosed: bool(false),
  /** Sluice's own: budgets' days, weeks and months as calendar windows in BudgetTimeZone, or rolling ones. */
  BudgetWindowMode: { kind: 'string', defaultValue: 'calendar', choices: ['calendar', 'rolling'] } as const,
  /** Sluice's own: the IANA time zone of calendar budget windows. */
  BudgetTimeZone: text('UTC'),
  /** Sluice's own: mail the user once per window when a budget's use reaches this percentage (0: never). */
  BudgetWarningPercent: int(0),
  /**
   * Sluice's own: the alert webhooks, a JSON list of {name, url, secret, events?} (schemas/alerts.ts).
   * Secret: it holds the signing keys and says where alerts go; root's alone, never answered.
   */
  AlertWebhooks: { kind: 'string', defaultValue: '[]', secret: true } as const,
  /** Sluice's own: minutes an alert of one kind about one object (a channel, a user, a key) stays quiet after it went out. */
  AlertCooldownMinutes: int(10),
  /** Sluice's own: attempts of a webhook delivery (1 to 10) before it is recorded as failed. */
  AlertWebhookAttempts: int(5),
  /** Sluice's own: seconds before a webhook's second attempt; each later wait doubles (at most 60). */
  AlertRetryBaseSeconds: float(2),
} as const satisfies Record<string, OptionDefinition>;

export type OptionKey = keyof typeof OPTION_DEFINITIONS;

export const OPTION_KEYS = Object.keys(OPTION_DEFINITIONS) as OptionKey[];

export const isOptionKey = (key: string): key is OptionKey => Object.hasOwn(OPTION_DEFINITIONS, key);

/** A key is secret when the table says so, or, for keys one-api knows and we do not, by its name. */
export const isSecretOptionKey = (key: string): boolean =>
  isOptionKey(key)
    ? (OPTION_DEFINITIONS[key] as OptionDefinition).secret === true
    : /(Token|Secret|SecretKey|Password)$/.test(key);
