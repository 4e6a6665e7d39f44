import type { Logger } from 'pino';
import {
  OPTION_DEFINITIONS,
  isOptionKey,
  isSecretOptionKey,
  type OptionDefinition,
  type OptionKey,
} from '@sluice/contract/option-keys';
import { readAlertWebhooks } from '@sluice/contract/schemas/alerts';
import { isTimeZone, readGroupRateLimits } from '@sluice/contract/schemas/limits';
import { readGroupRoutingStrategies } from '@sluice/contract/routing-strategies';
import { readOidcGroupMapping } from '@sluice/contract/schemas/oidc';
import type { Option } from '@sluice/contract/schemas/option';
import { checkRatioMap } from '@sluice/contract/ratio-map';
import type { Kysely } from 'kysely';
import type { Cache } from '../cache/cache.js';
import type { Dialect } from '../db/dsn.js';
import type { Tables } from '../db/tables.js';
import { businessError } from '../lib/app-error.js';
import { parseOptionValue, validateOptionValue, type OptionValues } from './option-values.js';
import { mergedCacheReadRatio, mergedCacheWriteRatio } from './cache-ratio.js';
import { mergedCompletionRatio, mergedModelRatio, type RatioMap } from './ratio.js';

const TOPIC = 'options';

export interface OptionStore {
  /** The typed values in force on this instance. */
  readonly values: Readonly<OptionValues>;
  /** Every stored and default option except secrets, as GET /api/option/ answers. */
  listPublic(): Option[];
  /** The shipped default of every option except secrets, shown as listPublic shows a value. */
  listDefaults(): Option[];
  /** Validates, stores, applies here at once and tells the other instances. */
  update(key: string, value: string): Promise<void>;
  /**
   * Several options at once, all or nothing: every value is validated (the first failure throws,
   * naming its key) before one transaction stores them all; then applied and told as one change.
   */
  updateMany(updates: readonly OptionUpdate[]): Promise<void>;
  /** Re-reads every option from the database. */
  reload(): Promise<void>;
}

export interface OptionUpdate {
  readonly key: string;
  readonly value: string;
}

export interface OptionStoreDeps {
  readonly db: Kysely<Tables>;
  readonly dialect: Dialect;
  readonly cache: Cache;
  readonly logger: Logger;
}

const defaults = (): Map<string, string> =>
  new Map(Object.entries(OPTION_DEFINITIONS).map(([key, definition]) => [key, definition.defaultValue]));

const typed = (raw: ReadonlyMap<string, string>): OptionValues => {
  const values: Record<string, unknown> = {};
  for (const [key, definition] of Object.entries(OPTION_DEFINITIONS) as [OptionKey, OptionDefinition][]) {
    values[key] = parseOptionValue(definition, raw.get(key) ?? definition.defaultValue);
  }
  return values as unknown as OptionValues;
};

/** Cross-option rules one-api checks before turning a feature on, and the shape of Sluice's JSON texts. */
const checkPrerequisites = (key: string, value: string, raw: ReadonlyMap<string, string>): void => {
  const requires: Record<string, [string, string]> = {
    GitHubOAuthEnabled: ['GitHubClientId', 'fill in the GitHub Client Id before enabling GitHub OAuth'],
    WeChatAuthEnabled: [
      'WeChatServerAddress',
      'fill in the WeChat server address before enabling WeChat login',
    ],
    TurnstileCheckEnabled: ['TurnstileSiteKey', 'fill in the Turnstile site key before enabling Turnstile'],
    EmailDomainRestrictionEnabled: ['EmailDomainWhitelist', 'fill in the email domain whitelist first'],
    OidcEnabled: [
      'OidcWellKnown',
      'fill in the OpenID Connect issuer before enabling OpenID Connect sign-in',
    ],
  };
  const rule = requires[key];
  if (rule && value === 'true' && (raw.get(rule[0]) ?? '').trim() === '') throw businessError(rule[1]);
  if (key === 'OidcGroupMapping') {
    const mapping = readOidcGroupMapping(value);
    if (!mapping.ok) throw businessError(mapping.message);
  }
  if (key === 'GroupRateLimits') {
    const limits = readGroupRateLimits(value);
    if (!limits.ok) throw businessError(limits.message);
  }
  if (key === 'GroupRoutingStrategies') {
    const strategies = readGroupRoutingStrategies(value);
    if (!strategies.ok) throw businessError(strategies.message);
  }
  if (key === 'BudgetTimeZone' && !isTimeZone(value))
    throw businessError('BudgetTimeZone must be a time zone such as UTC or Asia/Shanghai');
  if (key === 'BudgetWarningPercent' && Number(value) > 100)
    throw businessError('BudgetWarningPercent must be between 0 and 100 (0: no warning)');
  checkAlertOption(key, value);
};

/** The alert options' bounds: the webhook list's shape, bounded attempts and waits. */
const checkAlertOption = (key: string, value: string): void => {
  if (key === 'AlertWebhooks') {
    const hooks = readAlertWebhooks(value);
    if (!hooks.ok) throw businessError(hooks.message);
  }
  if (key === 'AlertWebhookAttempts' && (Number(value) < 1 || Number(value) > 10))
    throw businessError('AlertWebhookAttempts must be between 1 and 10');
  if (key === 'AlertRetryBaseSeconds' && Number(value) > 60)
    throw businessError('AlertRetryBaseSeconds must be at most 60');
};

/** The ratio maps the console sees merged over their built-in defaults. */
const MERGED: Partial<Record<OptionKey, (custom: RatioMap) => RatioMap>> = {
  ModelRatio: mergedModelRatio,
  CompletionRatio: mergedCompletionRatio,
  CacheReadRatio: mergedCacheReadRatio,
  CacheWriteRatio: mergedCacheWriteRatio,
};

/**
 * What the console sees of a value: the ratio maps merged over the built-in defaults (as one-api shows
 * them), so an admin edits the prices in force rather than an empty object. Like one-api, a built-in
 * price the operator deleted comes back here (one-api re-adds the missing defaults on every load, and
 * its lookups fall back to them anyway). A stored map with entries that are not ratios (one-api's
 * `"openrouter/auto": -500000`) is shown as it is in force, without them, so that what GET answers
 * PUT takes back unchanged.
 */
const shown = (key: string, value: string): string => {
  if (!isOptionKey(key)) return value;
  const definition = OPTION_DEFINITIONS[key];
  if (definition.kind !== 'json') return value;
  const custom = parseOptionValue(definition, value) as Record<string, number>;
  const merged = MERGED[key];
  if (merged) return JSON.stringify(merged(custom), null, 2);
  return checkRatioMap(value).ok ? value : JSON.stringify(custom);
};

const publicList = (raw: ReadonlyMap<string, string>): Option[] =>
  [...raw.entries()]
    .filter(([key]) => !isSecretOptionKey(key))
    .map(([key, value]) => ({ key, value: shown(key, value) }))
    .sort((left, right) => left.key.localeCompare(right.key));

export const createOptionStore = async (deps: OptionStoreDeps): Promise<OptionStore> => {
  let raw = defaults();
  let values = typed(raw);

  const reload = async (): Promise<void> => {
    const rows = await deps.db.selectFrom('options').select(['key', 'value']).execute();
    const next = defaults();
    for (const row of rows) next.set(row.key, row.value ?? '');
    raw = next;
    values = typed(raw);
  };

  const store = async (db: Kysely<Tables>, key: string, value: string): Promise<void> => {
    const insert = db.insertInto('options').values({ key, value });
    await (
      deps.dialect === 'mysql'
        ? insert.onDuplicateKeyUpdate({ value })
        : insert.onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
    ).execute();
  };

  const updateMany = async (updates: readonly OptionUpdate[]): Promise<void> => {
    const next = new Map(raw);
    for (const { key, value } of updates)
      next.set(key, isOptionKey(key) ? validateOptionValue(key, OPTION_DEFINITIONS[key], value) : value);
    for (const { key } of updates) checkPrerequisites(key, next.get(key) ?? '', next);
    const written = [...new Set(updates.map(({ key }) => key))];
    await deps.db.transaction().execute(async (trx) => {
      for (const key of written) await store(trx, key, next.get(key) ?? '');
    });
    for (const key of written) raw.set(key, next.get(key) ?? '');
    values = typed(raw);
    // Saved: a failed broadcast is logged; the other instances reload on resync and every SYNC_FREQUENCY.
    await deps.cache
      .publish(TOPIC, written.join(','))
      .catch((error: unknown) => deps.logger.error({ err: error, keys: written }, 'option broadcast failed'));
  };

  await reload();
  const reloadQuietly = () => {
    reload().catch((error: unknown) => deps.logger.error({ err: error }, 'options reload failed'));
  };
  await deps.cache.subscribe(TOPIC, reloadQuietly);
  deps.cache.onResync(reloadQuietly);

  return {
    get values() {
      return values;
    },
    listPublic: () => publicList(raw),
    listDefaults: () => publicList(defaults()),
    update: (key, value) => updateMany([{ key, value }]),
    updateMany,
    reload,
  };
};
