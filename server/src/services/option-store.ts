import type { Logger } from 'pino';
import {
  OPTION_DEFINITIONS,
  isOptionKey,
  isSecretOptionKey,
  type OptionDefinition,
  type OptionKey,
} from '@sluice/contract/option-keys';
import type { Option } from '@sluice/contract/schemas/option';
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
  /** Validates, stores, applies here at once and tells the other instances. */
  update(key: string, value: string): Promise<void>;
  /** Re-reads every option from the database. */
  reload(): Promise<void>;
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

/** Cross-option rules one-api checks before turning a feature on. */
const checkPrerequisites = (key: string, value: string, raw: ReadonlyMap<string, string>): void => {
  const requires: Record<string, [string, string]> = {
    GitHubOAuthEnabled: ['GitHubClientId', 'fill in the GitHub Client Id before enabling GitHub OAuth'],
    WeChatAuthEnabled: [
      'WeChatServerAddress',
      'fill in the WeChat server address before enabling WeChat login',
    ],
    TurnstileCheckEnabled: ['TurnstileSiteKey', 'fill in the Turnstile site key before enabling Turnstile'],
    EmailDomainRestrictionEnabled: ['EmailDomainWhitelist', 'fill in the email domain whitelist first'],
  };
  const rule = requires[key];
  if (rule && value === 'true' && (raw.get(rule[0]) ?? '').trim() === '') throw businessError(rule[1]);
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
 * them), so an admin edits the prices in force rather than an empty object.
 */
const shown = (key: string, value: string): string => {
  if (!isOptionKey(key)) return value;
  const merged = MERGED[key];
  if (!merged) return value;
  const custom = parseOptionValue(OPTION_DEFINITIONS[key], value) as Record<string, number>;
  return JSON.stringify(merged(custom), null, 2);
};

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

  const store = async (key: string, value: string): Promise<void> => {
    const insert = deps.db.insertInto('options').values({ key, value });
    await (
      deps.dialect === 'mysql'
        ? insert.onDuplicateKeyUpdate({ value })
        : insert.onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
    ).execute();
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
    listPublic: () =>
      [...raw.entries()]
        .filter(([key]) => !isSecretOptionKey(key))
        .map(([key, value]) => ({ key, value: shown(key, value) }))
        .sort((left, right) => left.key.localeCompare(right.key)),
    update: async (key, value) => {
      const normalized = isOptionKey(key) ? validateOptionValue(key, OPTION_DEFINITIONS[key], value) : value;
      checkPrerequisites(key, normalized, raw);
      await store(key, normalized);
      raw.set(key, normalized);
      values = typed(raw);
      // Saved: a failed broadcast is logged; the other instances reload on resync and every SYNC_FREQUENCY.
      await deps.cache
        .publish(TOPIC, key)
        .catch((error: unknown) => deps.logger.error({ err: error, key }, 'option broadcast failed'));
    },
    reload,
  };
};
