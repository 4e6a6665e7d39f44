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
/** The one price formula (the console's playground prices its replies with it too). */
export { computeQuota, type QuotaInput } from '@sluice/contract/quota-formula';
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
