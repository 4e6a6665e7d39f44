import { DEFAULT_MODEL_RATIO } from './ratio-defaults.js';
import { lookupRatio, pricedName, type RatioMap } from './ratio.js';

/**
 * The price of prompt tokens read from a provider's prompt cache (CacheReadRatio) and written to it
 * (CacheWriteRatio), relative to an uncached input token of the same model: a model the option
 * names, else the providers' published prices below, else 1 (no discount, no surcharge).
 */
type CacheRule = readonly [model: RegExp, read: number, write: number];

/**
 * The providers' published prices (cached input ÷ input), first match wins:
 * - Anthropic (docs.anthropic.com, prompt caching): reads 0.1×, 5-minute writes 1.25× the base input
 *   price; Claude Haiku 3 is priced apart ($0.25 input, $0.03 reads, $0.30 writes).
 * - OpenAI (openai.com/api/pricing, cached input): gpt-4o, gpt-4o-mini, gpt-4.5, o1 and o3-mini half
 *   price; gpt-4.1, o3, o4-mini and codex-mini a quarter; the gpt-5 family a tenth; gpt-4o-2024-05-13
 *   has no cached price. OpenAI reports no cache writes.
 * - Google (ai.google.dev pricing, context caching): Gemini 1.5, 2.0 and 2.5 a quarter (the 75 %
 *   discount of explicit and implicit caching), Gemini 3 a tenth. Gemini reports no cache writes.
 */
export const CACHE_RULES: readonly CacheRule[] = [
  [/^claude-3-haiku/, 0.12, 1.2],
  [/^claude-/, 0.1, 1.25],
  [/^gpt-4o-2024-05-13$/, 1, 1],
  [/^(gpt-4o|gpt-4\.5|o1|o3-mini)/, 0.5, 1],
  [/^(gpt-4\.1|o3|o4-mini|codex-mini)/, 0.25, 1],
  [/^gpt-5/, 0.1, 1],
  [/^gemini-(1\.5|2\.0|2\.5)-/, 0.25, 1],
  [/^gemini-3/, 0.1, 1],
];

const ruleFor = (name: string): CacheRule | undefined => CACHE_RULES.find(([model]) => model.test(name));

/** The built-in ratios of the models one-api prices, as the console shows them (1 left out). */
const defaultsFrom = (column: 1 | 2): RatioMap => {
  const table: Record<string, number> = {};
  for (const name of Object.keys(DEFAULT_MODEL_RATIO)) {
    const ratio = ruleFor(name)?.[column];
    if (ratio !== undefined && ratio !== 1) table[name] = ratio;
  }
  return Object.freeze(table);
};

export const DEFAULT_CACHE_READ_RATIO: RatioMap = defaultsFrom(1);
export const DEFAULT_CACHE_WRITE_RATIO: RatioMap = defaultsFrom(2);

const cacheRatio = (
  name: string,
  channelType: number,
  custom: RatioMap,
  defaults: RatioMap,
  column: 1 | 2,
): number => {
  const priced = pricedName(name);
  return lookupRatio(priced, channelType, custom, defaults) ?? ruleFor(priced)?.[column] ?? 1;
};

/** The price of a cache read of `name` on a channel of `channelType` (CacheReadRatio, then the defaults). */
export const cacheReadRatio = (name: string, channelType: number, custom: RatioMap): number =>
  cacheRatio(name, channelType, custom, DEFAULT_CACHE_READ_RATIO, 1);

/** The price of a cache write of `name` on a channel of `channelType` (CacheWriteRatio, then the defaults). */
export const cacheWriteRatio = (name: string, channelType: number, custom: RatioMap): number =>
  cacheRatio(name, channelType, custom, DEFAULT_CACHE_WRITE_RATIO, 2);

/** The CacheReadRatio option as the console shows it: the defaults with the stored map laid over them. */
export const mergedCacheReadRatio = (custom: RatioMap): RatioMap =>
  Object.freeze({ ...DEFAULT_CACHE_READ_RATIO, ...custom });

/** The CacheWriteRatio option as the console shows it: the defaults with the stored map laid over them. */
export const mergedCacheWriteRatio = (custom: RatioMap): RatioMap =>
  Object.freeze({ ...DEFAULT_CACHE_WRITE_RATIO, ...custom });
