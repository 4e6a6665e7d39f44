import type { OptionValues } from './option-values.js';

/** How an amount of quota reads in log contents: dollars, or points when currency display is off. */
export const formatLogQuota = (
  quota: number,
  options: Pick<OptionValues, 'DisplayInCurrencyEnabled' | 'QuotaPerUnit'>,
): string =>
  options.DisplayInCurrencyEnabled && options.QuotaPerUnit > 0
    ? `$${(quota / options.QuotaPerUnit).toFixed(6)} quota`
    : `${quota} quota points`;
