import {
  pricedName,
  ruleCompletionRatio,
  unqualifiedModelKey,
  usdPerMillionTokens,
} from '@sluice/contract/model-pricing';
import { checkRatioMap, readRatioMap, type RatioMap } from '@sluice/contract/ratio-map';

/**
 * The per-model price editor as pure functions over the form's texts: the ModelRatio and
 * CompletionRatio JSON the section saves stay the one source of truth; a row's edit rewrites them.
 * Prices follow the server's lookups: the option's entry, else the shipped default (one-api always
 * consults its defaults), else for the completion ratio one-api's rules; a model without a model
 * ratio is billed at 30 (one-api's fallback).
 */

/** The two maps a row is made of. */
export interface PriceMaps {
  readonly model: RatioMap;
  readonly completion: RatioMap;
}

export type PriceState = 'default' | 'custom' | 'missing';

export interface PriceRow {
  /** Its place in the list (ListRows keys rows by id). */
  readonly id: number;
  readonly model: string;
  /** The model ratio in force, undefined when there is none (billed at 30). */
  readonly modelRatio: number | undefined;
  /** The completion ratio entry in force, undefined when one-api's rules decide. */
  readonly completionRatio: number | undefined;
  /** What the rules give when no entry does. */
  readonly ruleCompletion: number;
  readonly state: PriceState;
  /** Served by a channel. */
  readonly served: boolean;
  /** Its entries differ from the shipped ones (a reset would change something). */
  readonly resettable: boolean;
}

export type PriceFilter = 'all' | 'changed' | 'missing';

/** A ratio map's form text (empty means `{}`), or undefined while it is not a valid map. */
export const parseRatioText = (text: string): RatioMap | undefined => {
  if (text.trim() === '') return {};
  const checked = checkRatioMap(text);
  return checked.ok ? checked.map : undefined;
};

/** The form text of a map, as the forms show one (pretty-printed, `{}` as empty). */
export const ratioText = (map: RatioMap): string =>
  Object.keys(map).length === 0 ? '' : JSON.stringify(map, null, 2);

/** Reads the shipped defaults (GET /api/option/defaults values); a value that is not a map reads as empty. */
export const defaultMap = (text: string | undefined): RatioMap => readRatioMap(text ?? '') ?? {};

const own = (map: RatioMap, key: string): number | undefined =>
  Object.hasOwn(map, key) ? map[key] : undefined;

/** The entry of `key` in force: the option's, else the default's; a qualified key falls back to its plain name. */
const inForce = (map: RatioMap, defaults: RatioMap, key: string): number | undefined => {
  const plain = pricedName(unqualifiedModelKey(key));
  return own(map, key) ?? own(defaults, key) ?? own(map, plain) ?? own(defaults, plain);
};

/** The completion ratio one-api's rules give a model (or a qualified key's model). */
export const ruleCompletion = (model: string): number =>
  ruleCompletionRatio(pricedName(unqualifiedModelKey(model)));

/** The rows: every model the maps, the defaults or the channels name, sorted by name. */
export const priceRows = (maps: PriceMaps, defaults: PriceMaps, served: readonly string[]): PriceRow[] => {
  const servedSet = new Set(served);
  const names = new Set([
    ...Object.keys(maps.model),
    ...Object.keys(maps.completion),
    ...Object.keys(defaults.model),
    ...served,
  ]);
  return [...names]
    .sort((left, right) => left.localeCompare(right))
    .map((model, id) => {
      const modelRatio = inForce(maps.model, defaults.model, model);
      const resettable =
        own(maps.model, model) !== own(defaults.model, model) ||
        own(maps.completion, model) !== own(defaults.completion, model);
      return {
        id,
        model,
        modelRatio,
        completionRatio: inForce(maps.completion, defaults.completion, model),
        ruleCompletion: ruleCompletion(model),
        state: modelRatio === undefined ? 'missing' : resettable ? 'custom' : 'default',
        served: servedSet.has(model),
        resettable,
      };
    });
};

/** The rows a search (any part of the name, any case) and a filter keep. */
export const filterRows = (rows: readonly PriceRow[], search: string, filter: PriceFilter): PriceRow[] => {
  const needle = search.trim().toLowerCase();
  return rows.filter(
    (row) =>
      row.model.toLowerCase().includes(needle) &&
      (filter === 'all' ||
        (filter === 'changed' && row.resettable) ||
        (filter === 'missing' && row.served && row.state === 'missing')),
  );
};

/** Served models without a model ratio: what the "without a ratio" filter lists. */
export const missingCount = (rows: readonly PriceRow[]): number =>
  rows.filter((row) => row.served && row.state === 'missing').length;

/** The map with `key` set (in its place when present, else last), or without it for undefined. */
const withEntry = (map: RatioMap, key: string, value: number | undefined): RatioMap =>
  value === undefined
    ? Object.fromEntries(Object.entries(map).filter(([name]) => name !== key))
    : Object.fromEntries([...Object.entries(map), [key, value]]);

/** One row's new entries (undefined removes the entry): the maps to store. */
export const editRow = (
  maps: PriceMaps,
  model: string,
  entries: { readonly modelRatio: number | undefined; readonly completionRatio: number | undefined },
): PriceMaps => ({
  model: withEntry(maps.model, model, entries.modelRatio),
  completion: withEntry(maps.completion, model, entries.completionRatio),
});

/** A row back to what Sluice ships: the default entries, or none where there is no default. */
export const resetRow = (maps: PriceMaps, defaults: PriceMaps, model: string): PriceMaps =>
  editRow(maps, model, {
    modelRatio: own(defaults.model, model),
    completionRatio: own(defaults.completion, model),
  });

/** The US dollar prices of 1M input and output tokens of a row's ratios. */
export const rowPrices = (
  modelRatio: number | undefined,
  completionRatio: number,
): { input: number; output: number } | undefined =>
  modelRatio === undefined
    ? undefined
    : {
        input: usdPerMillionTokens(modelRatio),
        output: usdPerMillionTokens(modelRatio * completionRatio),
      };

/** A dollar price: cents from a cent up, two significant digits below ($0.0057), `$0` for free. */
export const formatUsd = (usd: number): string =>
  `$${usd.toLocaleString(
    'en-US',
    usd === 0 || usd >= 0.01
      ? { minimumFractionDigits: usd === 0 ? 0 : 2, maximumFractionDigits: 2 }
      : { maximumSignificantDigits: 2 },
  )}`;

/** A ratio as the table shows it: at most six significant digits (1.33898 for 0.79 / 0.59). */
export const formatRatio = (ratio: number): string => String(Number(ratio.toPrecision(6)));
