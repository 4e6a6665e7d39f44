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

/** Relative distance from an integer below which a product counts as that integer (the billing's rule). */
const FLOAT_NOISE = 1e-9;

const ceilIgnoringFloatNoise = (value: number): number => {
  const nearest = Math.round(value);
  return Math.abs(value - nearest) <= FLOAT_NOISE * Math.max(1, Math.abs(nearest))
    ? nearest
    : Math.ceil(value);
};

/**
 * The quota a reply costs, by the billing's formula (server/src/services/ratio.ts, computeQuota):
 * ceil((uncached prompt + cache reads × cacheReadRatio + cache writes × cacheWriteRatio + completion ×
 * completionRatio) × modelRatio × groupRatio), at least 1 when the ratio is not 0, 0 without tokens.
 */
export const replyCost = (usage: ReplyUsage, price: ReplyPrice): number => {
  if (usage.promptTokens + usage.completionTokens === 0) return 0;
  const read = usage.cacheReadTokens;
  const write = usage.cacheWriteTokens;
  const prompt =
    read === 0 && write === 0
      ? usage.promptTokens
      : Math.max(0, usage.promptTokens - read - write) +
        read * price.cacheReadRatio +
        write * price.cacheWriteRatio;
  const ratio = price.modelRatio * price.groupRatio;
  const quota = ceilIgnoringFloatNoise((prompt + usage.completionTokens * price.completionRatio) * ratio);
  return ratio !== 0 && quota <= 0 ? 1 : quota;
};
