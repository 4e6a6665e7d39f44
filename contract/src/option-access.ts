import { isOptionKey, isSecretOptionKey, type OptionKey } from './option-keys.js';
import { isAdminRole, isRootRole } from './roles.js';

/**
 * Who may read and change an option through /api/option/. one-api answers that route to root alone;
 * the console's spec gives administrators (role 10) the operation, system and other tabs. Sluice lets
 * an administrator read and change the options below and keeps the rest root's:
 *
 * - every secret (SMTPToken, GitHubClientSecret, LarkClientSecret, WeChatServerToken,
 *   MessagePusherToken, TurnstileSecretKey): never answered to anyone, changed by root only;
 * - where those secrets are sent (SMTPServer, SMTPPort, SMTPAccount, SMTPFrom, WeChatServerAddress,
 *   MessagePusherAddress): an address changed by someone else would carry root's secret to them;
 * - how people log in (PasswordLoginEnabled, GitHub, Lark and WeChat login, Turnstile): an
 *   administrator could lock root out or sign in through a server of their own;
 * - ServerAddress (the links of password-reset mails and OAuth callbacks), TopUpLink and ChatLink
 *   (links that carry the user's id or token key);
 * - AuditLogRetentionDays: an administrator could age out the record of what they did;
 * - TwoFactorRequiredForAdmins: what an administrator's own sign-in needs is not theirs to lower;
 * - the OpenID Connect settings (Oidc*): how people sign in, and which group a sign-in puts them in;
 * - options one-api knows and Sluice's table does not.
 *
 * What an administrator may change is what the role already governs: prices and quotas (the ratio
 * maps, every option whose key ends in `Ratio`, and the quota settings), channel monitoring, logging,
 * how quota is displayed, who may register, and the site's texts (the console renders them sanitised).
 */
export const ADMIN_OPTION_KEYS = [
  // operation: general, logging, monitoring, quota
  'DisplayInCurrencyEnabled',
  'DisplayTokenStatEnabled',
  'PricingPublic',
  'ApproximateTokenEnabled',
  'QuotaPerUnit',
  'RetryTimes',
  'LogConsumeEnabled',
  'AutomaticDisableChannelEnabled',
  'AutomaticEnableChannelEnabled',
  'ChannelDisableThreshold',
  'ChannelBreakerFailures',
  'ChannelBreakerWindowSeconds',
  'ChannelBreakerCooldownSeconds',
  'QuotaRemindThreshold',
  'QuotaForNewUser',
  'PreConsumedQuota',
  'QuotaForInviter',
  'QuotaForInvitee',
  'ModelRatio',
  'CompletionRatio',
  'GroupRatio',
  // operation: limits and budgets
  'GroupRateLimits',
  'BudgetWindowMode',
  'BudgetTimeZone',
  'BudgetWarningPercent',
  // operation: alerts (the webhooks themselves are a secret: root's)
  'AlertCooldownMinutes',
  'AlertWebhookAttempts',
  'AlertRetryBaseSeconds',
  // system: registration
  'RegisterEnabled',
  'PasswordRegisterEnabled',
  'EmailVerificationEnabled',
  'EmailDomainRestrictionEnabled',
  'EmailDomainWhitelist',
  // other: personalisation
  'SystemName',
  'Theme',
  'Logo',
  'Notice',
  'HomePageContent',
  'About',
  'Footer',
] as const satisfies readonly OptionKey[];

const ADMIN_KEYS: ReadonlySet<string> = new Set(ADMIN_OPTION_KEYS);

/** An option an administrator may read and change (root may change every option). */
export const isAdminOptionKey = (key: string): boolean =>
  isOptionKey(key) && !isSecretOptionKey(key) && (ADMIN_KEYS.has(key) || /Ratio$/.test(key));

/** Whether a user of `role` may change `key`. */
export const mayChangeOption = (key: string, role: number): boolean =>
  isRootRole(role) || (isAdminRole(role) && isAdminOptionKey(key));
