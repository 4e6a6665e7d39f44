/**
 * one-api's pricing rules that server and console both need: the name a model is priced under, the
 * completion ratios one-api derives from a model's name, and what a ratio costs in US dollars. The
 * lookups over the option maps and the defaults stay in the server (`services/ratio.ts`).
 */

/** one-api's unit: a model ratio of 1 is $0.002 per 1K prompt tokens, $2 per 1M. */
export const USD_PER_MILLION_TOKENS_AT_RATIO_1 = 2;

/** The price in US dollars of 1M tokens at `ratio` (prompt: the model ratio; completion: × the completion ratio). */
export const usdPerMillionTokens = (ratio: number): number => ratio * USD_PER_MILLION_TOKENS_AT_RATIO_1;

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

/** The plain model name of a key, without a `(<type id>)` qualifier. */
export const unqualifiedModelKey = (key: string): string => key.replace(/\(\d+\)$/, '');

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
  // Sluice: Claude 4 and later (claude-sonnet-4…, claude-opus-4-1@…, claude-haiku-4-5…) cost 5× for
  // output as Claude 3 does (one-api predates them and falls to its claude- rule of 3).
  [any(startsWith('claude-sonnet-'), startsWith('claude-opus-'), startsWith('claude-haiku-')), 5],
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

/** The completion ratio one-api derives from a (priced) name when no map names it: the first rule, else 1. */
export const ruleCompletionRatio = (name: string): number =>
  COMPLETION_RULES.find(([matches]) => matches(name))?.[1] ?? 1;
