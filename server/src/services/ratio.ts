import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_RATIO } from './ratio-defaults.js';

/** A ratio option as stored (ModelRatio, CompletionRatio, GroupRatio): name → number. */
export type RatioMap = Readonly<Record<string, number>>;

/** What a model costs when neither the admin's map nor the defaults know it (one-api: 30). */
export const UNKNOWN_MODEL_RATIO = 30;

export interface ModelRatioResult {
  readonly ratio: number;
  /** false when the fallback of 30 was used (one-api logs "model ratio not found"). */
  readonly known: boolean;
}

const INTERNET_SUFFIX = '-internet';
/** Families whose `-internet` variants (web search on) are priced like the plain model. */
const INTERNET_FAMILIES = ['qwen-', 'command-'] as const;

/**
 * The name to price: `qwen-…-internet` and `command-…-internet` cost what the plain model costs.
 * (one-api strips `command-` suffixes only for the model ratio, so its command-r-internet falls to a
 * completion ratio of 1; Sluice strips for both lookups.)
 */
export const pricedName = (name: string): string =>
  name.endsWith(INTERNET_SUFFIX) && INTERNET_FAMILIES.some((family) => name.startsWith(family))
    ? name.slice(0, -INTERNET_SUFFIX.length)
    : name;

/** `name(<type id>)`: a key that applies to one channel type only. */
export const qualifiedModelKey = (name: string, channelType: number): string => `${name}(${channelType})`;

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

type CompletionRule = readonly [matches: (name: string) => boolean, ratio: number];

const startsWith =
  (prefix: string) =>
  (name: string): boolean =>
    name.startsWith(prefix);
const endsWith =
  (suffix: string) =>
  (name: string): boolean =>
    name.endsWith(suffix);
const oneOf = (...names: string[]): ((name: string) => boolean) => {
  const set = new Set(names);
  return (name) => set.has(name);
};
const all =
  (...tests: ((name: string) => boolean)[]) =>
  (name: string): boolean =>
    tests.every((test) => test(name));
const any =
  (...tests: ((name: string) => boolean)[]) =>
  (name: string): boolean =>
    tests.some((test) => test(name));

/**
 * one-api's built-in completion ratios (output price / input price) for models without an explicit
 * entry. First match wins, so the order matters; no match → 1.
 */
export const COMPLETION_RULES: readonly CompletionRule[] = [
  [all(startsWith('gpt-3.5'), any(oneOf('gpt-3.5-turbo'), endsWith('0125'))), 3],
  [all(startsWith('gpt-3.5'), endsWith('1106')), 2],
  [startsWith('gpt-3.5'), 4 / 3],
  [oneOf('gpt-4o-2024-05-13'), 3],
  [startsWith('gpt-4o'), 4],
  [all(startsWith('gpt-4'), any(startsWith('gpt-4-turbo'), endsWith('preview'))), 3],
  [startsWith('gpt-4'), 2],
  [startsWith('o1'), 4],
  [oneOf('chatgpt-4o-latest'), 3],
  [startsWith('claude-3'), 5],
  [startsWith('claude-'), 3],
  [startsWith('mistral-'), 3],
  [startsWith('gemini-'), 3],
  [startsWith('deepseek-'), 2],
  [oneOf('llama2-70b-4096'), 1.25], // 0.8 / 0.64
  [oneOf('llama3-8b-8192'), 2],
  [oneOf('llama3-70b-8192'), 1.3389830508474576], // 0.79 / 0.59
  [oneOf('command', 'command-light', 'command-nightly', 'command-light-nightly'), 2],
  [oneOf('command-r'), 3],
  [oneOf('command-r-plus'), 5],
  [oneOf('grok-beta'), 3],
  // Replicate (https://replicate.com/pricing)
  [oneOf('ibm-granite/granite-20b-code-instruct-8k'), 5],
  [oneOf('ibm-granite/granite-3.0-2b-instruct'), 8.333333333333334],
  [oneOf('ibm-granite/granite-3.0-8b-instruct', 'ibm-granite/granite-8b-code-instruct-128k'), 5],
  [
    oneOf(
      'meta/llama-2-13b',
      'meta/llama-2-13b-chat',
      'meta/llama-2-7b',
      'meta/llama-2-7b-chat',
      'meta/meta-llama-3-8b',
      'meta/meta-llama-3-8b-instruct',
    ),
    5,
  ],
  [
    oneOf(
      'meta/llama-2-70b',
      'meta/llama-2-70b-chat',
      'meta/meta-llama-3-70b',
      'meta/meta-llama-3-70b-instruct',
    ),
    4.230769230769231, // 2.75 / 0.65
  ],
  [oneOf('meta/meta-llama-3.1-405b-instruct'), 1],
  [oneOf('mistralai/mistral-7b-instruct-v0.2', 'mistralai/mistral-7b-v0.1'), 5],
  [oneOf('mistralai/mixtral-8x7b-instruct-v0.1'), 3.3333333333333335], // 1 / 0.3
];

/** The completion ratio of `name` on a channel of `channelType`: explicit entries, then the rules, then 1. */
export const completionRatio = (name: string, channelType: number, custom: RatioMap): number => {
  const priced = pricedName(name);
  const explicit = lookupRatio(priced, channelType, custom, DEFAULT_COMPLETION_RATIO);
  if (explicit !== undefined) return explicit;
  const rule = COMPLETION_RULES.find(([matches]) => matches(priced));
  return rule === undefined ? 1 : rule[1];
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
