import { parseJson } from '@sluice/contract/parse-json';
import { isRoutingStrategy, type RoutingStrategyName } from '@sluice/contract/routing-strategies';
import { MAX_LIMIT_VALUE, type GroupRateLimit } from '@sluice/contract/schemas/limits';
import { EMPTY_RATE_LIMITS, rateLimitInputOf, type RateLimitForm } from '../../../lib/rate-limit-form.js';

/**
 * The group rows of the ratio settings, as pure functions over the option texts the section's form
 * holds: GroupRatio names the groups, GroupRateLimits ({"vip": {"rpm": 60}}) and
 * GroupRoutingStrategies ({"vip": "round_robin"}) are rewritten one row at a time.
 */

/** One group's row: its ratio (absent when only the limits or strategies name it). */
export interface GroupRow {
  readonly group: string;
  readonly ratio: number | undefined;
  readonly limits: RateLimitForm;
  /** '' for the server-wide RoutingStrategy. */
  readonly strategy: RoutingStrategyName | '';
}

/** The option's field of each form field. */
const OPTION_FIELD = {
  rpm_limit: 'rpm',
  tpm_limit: 'tpm',
  concurrency_limit: 'concurrency',
} as const satisfies Record<keyof RateLimitForm, keyof GroupRateLimit>;

const FORM_FIELDS = Object.keys(OPTION_FIELD) as (keyof RateLimitForm)[];

/** A JSON object text as its entries (anything else, or empty: none). */
const entriesOf = (text: string): [string, unknown][] => {
  const parsed = text.trim() === '' ? undefined : parseJson(text);
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? Object.entries(parsed as Record<string, unknown>)
    : [];
};

/** One group's limits in the form: a number as stored, '' when unset. */
const limitFormOf = (value: unknown): RateLimitForm => {
  const stored = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const form: RateLimitForm = { ...EMPTY_RATE_LIMITS };
  for (const field of FORM_FIELDS) {
    const limit = stored[OPTION_FIELD[field]];
    form[field] = typeof limit === 'number' ? limit : '';
  }
  return form;
};

/** The rows: GroupRatio's groups in its order, then groups only the limits or strategies name. */
export const groupRows = (ratioText: string, limitsText: string, strategiesText: string): GroupRow[] => {
  const ratios = new Map(entriesOf(ratioText));
  const limits = new Map(entriesOf(limitsText));
  const strategies = new Map(entriesOf(strategiesText));
  const groups = [...new Set([...ratios.keys(), ...limits.keys(), ...strategies.keys()])];
  return groups.map((group) => {
    const ratio = ratios.get(group);
    const strategy = strategies.get(group);
    return {
      group,
      ratio: typeof ratio === 'number' ? ratio : undefined,
      limits: limitFormOf(limits.get(group)),
      strategy: isRoutingStrategy(strategy) ? strategy : '',
    };
  });
};

/** A map as the option's text: compact JSON, '' when it holds nothing (shown and stored as `{}`). */
const textOf = (entries: readonly [string, unknown][]): string =>
  entries.length === 0 ? '' : JSON.stringify(Object.fromEntries(entries));

/** Replaces (or, when `value` is undefined, removes) one group's entry, keeping the others' order. */
const withEntry = (text: string, group: string, value: unknown): string => {
  const entries = entriesOf(text);
  const index = entries.findIndex(([name]) => name === group);
  if (value === undefined) return textOf(entries.filter(([name]) => name !== group));
  if (index === -1) return textOf([...entries, [group, value]]);
  return textOf(entries.map((entry, at) => (at === index ? [group, value] : entry)));
};

/** GroupRateLimits with one group's limits: empty fields left out, a group without any removed. */
export const withGroupLimits = (limitsText: string, group: string, form: RateLimitForm): string => {
  const limit: Record<string, number> = {};
  for (const field of FORM_FIELDS) {
    const value = form[field];
    if (value !== '') limit[OPTION_FIELD[field]] = value;
  }
  return withEntry(limitsText, group, Object.keys(limit).length === 0 ? undefined : limit);
};

/** GroupRoutingStrategies with one group's strategy ('': the server-wide one, the entry removed). */
export const withGroupStrategy = (
  strategiesText: string,
  group: string,
  strategy: RoutingStrategyName | '',
): string => withEntry(strategiesText, group, strategy === '' ? undefined : strategy);

/** True when every limit of the row is empty or a whole number from 0 to the contract's maximum. */
export const validGroupLimits = (form: RateLimitForm): boolean =>
  rateLimitInputOf(form) !== undefined &&
  FORM_FIELDS.every((field) => form[field] === '' || form[field] <= MAX_LIMIT_VALUE);

/** The groups whose limits the server would refuse (the save waits until they are fixed). */
export const invalidGroups = (rows: readonly GroupRow[]): string[] =>
  rows.filter((row) => !validGroupLimits(row.limits)).map((row) => row.group);
