import { isSecretOptionKey, OPTION_DEFINITIONS, type OptionKey } from '@sluice/contract/option-keys';
import type { Option, updateOptionRequestSchema } from '@sluice/contract/schemas/option';
import type { z } from 'zod';
import { isValidJson, parseJson } from '@sluice/contract/parse-json';

/**
 * The save rules of spec §5 for the admin settings tabs, as pure functions: values are shown with
 * JSON ratios pretty-printed and `{}` as empty; a save sends only changed values, secrets only when
 * non-empty, addresses without trailing slashes; ratio texts must be valid JSON; the whitelist
 * ignores empty and present domains and is saved only when changed.
 */

export type OptionValues = Readonly<Record<string, string>>;

/** One PUT /api/option/ body, its key one of the option table's. */
export type OptionUpdate = Readonly<z.input<typeof updateOptionRequestSchema> & { key: OptionKey }>;

export const RATIO_KEYS = [
  'ModelRatio',
  'CompletionRatio',
  'GroupRatio',
  'CacheReadRatio',
  'CacheWriteRatio',
] as const;
export type RatioKey = (typeof RATIO_KEYS)[number];

export const isRatioKey = (key: string): key is RatioKey => (RATIO_KEYS as readonly string[]).includes(key);

/** Addresses saved without their trailing slashes. */
const ADDRESS_KEYS: readonly OptionKey[] = ['ServerAddress', 'WeChatServerAddress'];

/** One value as the forms show it: ratio JSON pretty-printed, `{}` as empty. */
export const shownValue = (key: string, value: string): string => {
  // A ratio that is not JSON is shown as stored: the admin fixes it.
  const parsed = isRatioKey(key) ? parseJson(value) : undefined;
  const shown = parsed === undefined ? value : JSON.stringify(parsed, null, 2);
  return shown.trim() === '{}' ? '' : shown;
};

/** GET /api/option/ as form values (secret keys never come, so they read as ''). */
export const formValues = (options: readonly Option[]): Record<string, string> =>
  Object.fromEntries(options.map(({ key, value }) => [key, shownValue(key, value)]));

/** The server address without trailing slashes (and surrounding spaces). */
export const normalizeAddress = (value: string): string => value.trim().replace(/\/+$/, '');

const isNumeric = (key: OptionKey): boolean => {
  const kind = OPTION_DEFINITIONS[key].kind;
  return kind === 'int' || kind === 'float';
};

/**
 * The updates of a section: secrets when non-empty; other values when changed (numbers left empty
 * are kept); addresses normalised; an emptied ratio is saved as `{}`.
 */
export const collectUpdates = (
  keys: readonly OptionKey[],
  original: OptionValues,
  current: OptionValues,
): OptionUpdate[] => {
  const updates: OptionUpdate[] = [];
  for (const key of keys) {
    const value = current[key] ?? '';
    if (isSecretOptionKey(key)) {
      if (value !== '') updates.push({ key, value });
      continue;
    }
    const next = ADDRESS_KEYS.includes(key) ? normalizeAddress(value) : value;
    if (next === (original[key] ?? '')) continue;
    if (isNumeric(key) && next.trim() === '') continue;
    updates.push({ key, value: isRatioKey(key) && next.trim() === '' ? '{}' : next });
  }
  return updates;
};

/**
 * Spec §5: ratio texts must be valid JSON (empty means `{}`): the first ratio among `updates` that is
 * not, if any.
 */
export const invalidRatio = (updates: readonly OptionUpdate[]): RatioKey | undefined =>
  updates.find(
    (update): update is OptionUpdate & { key: RatioKey } =>
      isRatioKey(update.key) && !isValidJson(update.value),
  )?.key;

/**
 * The option a refused save names: the server's messages start with the key (`ModelRatio: "x" must
 * be a non-negative number`, `QuotaPerUnit must be a number`); undefined when none of `keys` does.
 */
export const refusedKey = (keys: readonly OptionKey[], message: string): OptionKey | undefined =>
  keys.find((key) => message.startsWith(`${key}:`) || message.startsWith(`${key} `));

/** The whitelist as a list of domains. */
export const parseWhitelist = (value: string): string[] =>
  value
    .split(',')
    .map((domain) => domain.trim())
    .filter((domain) => domain !== '');

/** Adds a domain: ignored when empty or already present. */
export const addDomain = (list: readonly string[], input: string): readonly string[] => {
  const domain = input.trim();
  return domain === '' || list.includes(domain) ? list : [...list, domain];
};

/** The whitelist update, only when the list differs from the stored one. */
export const whitelistUpdate = (original: string, list: readonly string[]): OptionUpdate | undefined => {
  const value = list.join(',');
  return value === parseWhitelist(original).join(',') ? undefined : { key: 'EmailDomainWhitelist', value };
};
