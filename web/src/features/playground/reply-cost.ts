import { computeQuota } from '@sluice/contract/quota-formula';
import type { PricingAnswer } from '@sluice/contract/schemas/pricing';
import type { ReplyUsage } from './reply-reader.js';

/** The ratios a reply is billed at: the model's row of GET /api/pricing and the group's ratio. */
export interface ReplyPrice {
  readonly modelRatio: number;
  readonly completionRatio: number;
  readonly cacheReadRatio: number;
  readonly cacheWriteRatio: number;
  readonly groupRatio: number;
}

/** The price of a model for the caller's group, from GET /api/pricing; undefined when it is not listed or not billed by tokens. */
export const replyPriceOf = (pricing: PricingAnswer, model: string): ReplyPrice | undefined => {
  const row = pricing.data.find((entry) => entry.model_name === model && entry.billed_by === 'tokens');
  if (!row) return undefined;
  return {
    modelRatio: row.model_ratio,
    completionRatio: row.completion_ratio,
    cacheReadRatio: row.cache_read_ratio,
    cacheWriteRatio: row.cache_write_ratio,
    groupRatio: pricing.group_ratio[pricing.group] ?? 1,
  };
};

/**
 * The quota a reply costs: the billing's own formula (`computeQuota` in the contract) at the ratios
 * GET /api/pricing gives.
 */
export const replyCost = (usage: ReplyUsage, price: ReplyPrice): number =>
  computeQuota({
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    modelRatio: price.modelRatio,
    completionRatio: price.completionRatio,
    groupRatio: price.groupRatio,
    cacheReadTokens: usage.cacheReadTokens,
    cacheReadRatio: price.cacheReadRatio,
    cacheWriteTokens: usage.cacheWriteTokens,
    cacheWriteRatio: price.cacheWriteRatio,
  });
