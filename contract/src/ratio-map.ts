import { parseJson } from './parse-json.js';

/**
 * A ratio option (ModelRatio, CompletionRatio, GroupRatio, CacheReadRatio, CacheWriteRatio) as
 * stored: a JSON object of name → ratio. The one reading of those texts for server and console.
 */
export type RatioMap = Readonly<Record<string, number>>;

/** A ratio is a finite number, 0 or more: a negative number is not a price. */
export const isRatio = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with a ratio map's text: not JSON, not an object, or its first entry that is not a ratio. */
export type RatioMapProblem =
  | { readonly kind: 'json' }
  | { readonly kind: 'object' }
  | { readonly kind: 'entry'; readonly name: string; readonly value: unknown };

export type RatioMapCheck =
  { readonly ok: true; readonly map: RatioMap } | { readonly ok: false; readonly problem: RatioMapProblem };

/** Reads a ratio map's text whole: every entry must be a ratio. */
export const checkRatioMap = (text: string): RatioMapCheck => {
  const parsed = parseJson(text);
  if (parsed === undefined) return { ok: false, problem: { kind: 'json' } };
  if (!isObject(parsed)) return { ok: false, problem: { kind: 'object' } };
  const bad = Object.entries(parsed).find(([, value]) => !isRatio(value));
  if (bad) return { ok: false, problem: { kind: 'entry', name: bad[0], value: bad[1] } };
  return { ok: true, map: parsed as RatioMap };
};

/**
 * The ratios of a stored text, entry by entry: an entry that is not a ratio is left out and the
 * others kept (one-api's databases may hold `"openrouter/auto": -500000`); undefined when the text is
 * not a JSON object. Own properties only, `__proto__` included, so no name reaches a prototype.
 */
export const readRatioMap = (text: string): RatioMap | undefined => {
  const parsed = parseJson(text);
  if (!isObject(parsed)) return undefined;
  return Object.fromEntries(Object.entries(parsed).filter(([, value]) => isRatio(value))) as RatioMap;
};
