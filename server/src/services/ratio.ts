import {
  COMPLETION_RULES,
  pricedName,
  qualifiedModelKey,
  ruleCompletionRatio,
} from '@sluice/contract/model-pricing';
import type { RatioMap } from '@sluice/contract/ratio-map';
import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from './ratio-defaults.js';

/** The pricing rules the console shares live in the contract; the relay reads them from here. */
export { COMPLETION_RULES, pricedName, qualifiedModelKey };
/** A ratio option as stored (ModelRatio, CompletionRatio, GroupRatio): name → number. */
export type { RatioMap };

/** What a model costs when neither the admin's map nor the defaults know it (one-api: 30). */
export const UNKNOWN_MODEL_RATIO = 30;

export interface ModelRatioResult {
  readonly ratio: number;
  /** false when the fallback of 30 was used (one-api logs "model ratio not found"). */
  readonly known: boolean;
}

/** Own keys only: a model called "constructor" must not find Object.prototype.constructor. */
const own = (map: RatioMap, key: string): number | undefined =>
  Object.hasOwn(map, key) ? map[key] : undefined;

/** custom qualified → default qualified → custom plain → default plain. */
export const lookupRatio = (
  name: string,
  channelType: number,
  custom: RatioMap,
  defaults: RatioMap,
): number | undefined => {
  const qualified = qualifiedModelKey(name, channelType);
  return own(custom, qualified) ?? own(defaults, qualified) ?? own(custom, name) ?? own(defaults, name);
};

/**
 * The model ratio of `name` on a channel of `channelType`. The defaults are always consulted, so
 * an admin can override a built-in ratio but not remove it.
 */
export const modelRatio = (name: string, channelType: number, custom: RatioMap): ModelRatioResult => {
  const ratio = lookupRatio(pricedName(name), channelType, custom, DEFAULT_MODEL_RATIO);
  return ratio === undefined ? { ratio: UNKNOWN_MODEL_RATIO, known: false } : { ratio, known: true };
};

/** The completion ratio of `name` on a channel of `channelType`: explicit entries, then the rules, then 1. */
export const completionRatio = (name: string, channelType: number, custom: RatioMap): number => {
  const priced = pricedName(name);
  const explicit = lookupRatio(priced, channelType, custom, DEFAULT_COMPLETION_RATIO);
  if (explicit !== undefined) return explicit;
  return ruleCompletionRatio(priced);
};

/** The ratio of a user group; a group the map does not name costs 1. */
export const groupRatio = (group: string, custom: RatioMap): number => own(custom, group) ?? 1;

/** The ModelRatio option as one-api shows it: the defaults with the stored map laid over them. */
export const mergedModelRatio = (custom: RatioMap): RatioMap =>
  Object.freeze({ ...DEFAULT_MODEL_RATIO, ...custom });

/** The CompletionRatio option as one-api shows it: the defaults with the stored map laid over them. */
export const mergedCompletionRatio = (custom: RatioMap): RatioMap =>
  Object.freeze({ ...DEFAULT_COMPLETION_RATIO, ...custom });

export interface QuotaInput {
  /** Every input token, cache reads and writes included. */
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly modelRatio: number;
  readonly completionRatio: number;
  readonly groupRatio: number;
  /** Of the prompt tokens, those read from the provider's prompt cache (0 when absent). */
  readonly cacheReadTokens?: number;
  /** Their price relative to an uncached input token (1 when absent). */
  readonly cacheReadRatio?: number;
  /** Of the prompt tokens, those written to the provider's prompt cache (0 when absent). */
  readonly cacheWriteTokens?: number;
  /** Their price relative to an uncached input token (1 when absent). */
  readonly cacheWriteRatio?: number;
}

/** Relative distance from an integer below which a product counts as that integer. */
const FLOAT_NOISE = 1e-9;

/**
 * Math.ceil, except that a value within float noise of an integer is that integer. Ratios such as
 * 0.075 or 1.4286 have no exact binary form, so a product that is an integer on paper can come out
 * as 7500.000000001, and a bare ceil would bill 7501. Token counts are integers and ratios have at
 * most a handful of decimals, so a genuine fractional part is never as small as 1e-9 of the value.
 */
const ceilIgnoringFloatNoise = (value: number): number => {
  const nearest = Math.round(value);
  return Math.abs(value - nearest) <= FLOAT_NOISE * Math.max(1, Math.abs(nearest))
    ? nearest
    : Math.ceil(value);
};

/**
 * The prompt's tokens as priced: the uncached ones at 1, the cache reads and writes at their ratios.
 * Without cache tokens, exactly the prompt tokens (the price one-api's formula gives).
 */
const pricedPrompt = (input: QuotaInput): number => {
  const read = input.cacheReadTokens ?? 0;
  const write = input.cacheWriteTokens ?? 0;
  if (read === 0 && write === 0) return input.promptTokens;
  return (
    Math.max(0, input.promptTokens - read - write) +
    read * (input.cacheReadRatio ?? 1) +
    write * (input.cacheWriteRatio ?? 1)
  );
};

/**
 * Quota for one request: ceil((uncached prompt + cache reads × cacheReadRatio + cache writes ×
 * cacheWriteRatio + completion × completionRatio) × modelRatio × groupRatio), which without cache
 * tokens is one-api's ceil((prompt + completion × completionRatio) × modelRatio × groupRatio). A
 * priced request never costs 0 (at least 1 when the ratio is not 0); a request with no tokens costs
 * nothing.
 */
export const computeQuota = (input: QuotaInput): number => {
  if (input.promptTokens + input.completionTokens === 0) return 0;
  const ratio = input.modelRatio * input.groupRatio;
  const quota = ceilIgnoringFloatNoise(
    (pricedPrompt(input) + input.completionTokens * input.completionRatio) * ratio,
  );
  return ratio !== 0 && quota <= 0 ? 1 : quota;
};
