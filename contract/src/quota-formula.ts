/** The one formula that prices tokens: the relay's billing, the price list and the playground use it. */

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
