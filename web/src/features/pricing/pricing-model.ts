import { CHANNEL_TYPES } from '@sluice/contract/channel-types';
import type { PriceSet, PricingRow } from '@sluice/contract/schemas/pricing';

/**
 * The price list as pure functions: search, owner filter, order, and the figures a cell shows. The
 * prices themselves come from the server, computed by the billing's own functions; nothing here
 * prices anything.
 */

export type PriceCurrency = 'usd' | 'quota';
export type PriceOrder = 'name' | 'input' | 'output';
export const PRICE_ORDERS: readonly PriceOrder[] = ['name', 'input', 'output'];

/** A row with its place in the list (ListRows keys rows by id). */
export type ListedPrice = PricingRow & { readonly id: number };

/** The price columns, in order; an image's price shows in the input column. */
export const PRICE_COLUMNS = ['input', 'output', 'cache_read', 'cache_write'] as const;
export type PriceColumn = (typeof PRICE_COLUMNS)[number];

export const ALL_OWNERS = '';

/** The owners of the rows, sorted, each once. */
export const ownersOf = (rows: readonly PricingRow[]): string[] =>
  [...new Set(rows.map((row) => row.owner_by))].sort((left, right) => left.localeCompare(right));

/** The price a column shows of a row in a currency: an image's per-image price in the input column. */
export const priceOf = (row: PricingRow, currency: PriceCurrency, column: PriceColumn): number | null => {
  const prices: PriceSet = currency === 'usd' ? row.usd : row.quota;
  return column === 'input' && row.billed_by === 'image' ? prices.image : prices[column];
};

const orderValue = (row: PricingRow, order: PriceOrder): number =>
  priceOf(row, 'quota', order === 'output' ? 'output' : 'input') ?? Number.POSITIVE_INFINITY;

/** The rows a search (any part of the model's name or owner, any case) and an owner keep, in an order. */
export const listedPrices = (
  rows: readonly PricingRow[],
  options: { readonly search: string; readonly owner: string; readonly order: PriceOrder },
): ListedPrice[] => {
  const needle = options.search.trim().toLowerCase();
  const kept = rows.filter(
    (row) =>
      (options.owner === ALL_OWNERS || row.owner_by === options.owner) &&
      (row.model_name.toLowerCase().includes(needle) || row.owner_by.toLowerCase().includes(needle)),
  );
  const byName = (left: PricingRow, right: PricingRow) => left.model_name.localeCompare(right.model_name);
  const sorted =
    options.order === 'name'
      ? [...kept].sort(byName)
      : [...kept].sort(
          (left, right) =>
            orderValue(left, options.order) - orderValue(right, options.order) || byName(left, right),
        );
  return sorted.map((row, id) => ({ ...row, id }));
};

/** Dollars: cents from a cent up (more digits when the price has them: $0.075), significant digits below. */
export const formatDollars = (usd: number): string =>
  `$${usd.toLocaleString(
    'en-US',
    usd === 0 || usd >= 0.01
      ? { minimumFractionDigits: usd === 0 ? 0 : 2, maximumFractionDigits: 4 }
      : { maximumSignificantDigits: 3 },
  )}`;

/** Quota units: whole numbers with thousands separated (fractions, which the billing never makes, kept). */
export const formatUnits = (quota: number): string =>
  quota.toLocaleString('en-US', { maximumFractionDigits: 4 });

/** A price cell's text; '—' where the price does not apply to how the model is billed. */
export const formatPrice = (value: number | null, currency: PriceCurrency): string =>
  value === null ? '—' : currency === 'usd' ? formatDollars(value) : formatUnits(value);

/** A channel type's label in the catalogue (its id when the catalogue does not know it). */
export const channelTypeName = (type: number): string =>
  CHANNEL_TYPES.find((entry) => entry.value === type)?.text ?? `#${type}`;
