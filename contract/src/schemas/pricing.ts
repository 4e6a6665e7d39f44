import { z } from 'zod';

/**
 * GET /api/pricing: every model the caller's group can use, priced by the ratios the billing uses.
 * The rows keep new-api's field names where they mean the same (model_name, owner_by, quota_type,
 * model_ratio, model_price, completion_ratio, enable_groups) so one-api-family clients read them;
 * Sluice adds the cache ratios, the channel types and the prices themselves, in quota and in dollars.
 */

/**
 * How a model is billed: by tokens (chat, completions, embeddings), per image, by the input's
 * characters (speech: its UTF-8 bytes), or by the transcript's tokens (transcription).
 */
export const BILLING_UNITS = ['tokens', 'image', 'characters', 'transcript'] as const;
export type BillingUnit = (typeof BILLING_UNITS)[number];

/** new-api's quota_type: 0 by usage, 1 a price per call (here: per image). */
export const QUOTA_TYPE = { usage: 0, perCall: 1 } as const;

/**
 * A model's prices in one currency (quota units or US dollars): per 1M tokens for `tokens` (input,
 * output, cache reads, cache writes), per 1M characters for `characters` (input), per 1M transcript
 * tokens for `transcript` (output), per image for `image` (image, at 1024x1024, standard quality).
 * A price that does not apply to the unit is null.
 */
export const priceSetSchema = z.object({
  input: z.number().nullable(),
  output: z.number().nullable(),
  cache_read: z.number().nullable(),
  cache_write: z.number().nullable(),
  image: z.number().nullable(),
});
export type PriceSet = z.infer<typeof priceSetSchema>;

export const pricingRowSchema = z.object({
  model_name: z.string(),
  /** The provider that publishes the model (GET /v1/models' owned_by), or the serving type's. */
  owner_by: z.string(),
  /** The channel types (CHANNEL_TYPE ids) of the enabled channels that serve it at these prices. */
  channel_types: z.array(z.number()),
  billed_by: z.enum(BILLING_UNITS),
  quota_type: z.number(),
  model_ratio: z.number(),
  completion_ratio: z.number(),
  cache_read_ratio: z.number(),
  cache_write_ratio: z.number(),
  /** US dollars per call where quota_type is 1 (an image), else 0. */
  model_price: z.number(),
  /** False when no ratio is set for the model: it is billed at one-api's default ratio of 30. */
  priced: z.boolean(),
  enable_groups: z.array(z.string()),
  quota: priceSetSchema,
  usd: priceSetSchema,
});
export type PricingRow = z.infer<typeof pricingRowSchema>;

/** The whole answer: the rows in `data` (new-api's place), the group and its ratio beside them. */
export const pricingAnswerSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  data: z.array(pricingRowSchema),
  /** The group the prices are for: the caller's, or 'default' for a visitor. */
  group: z.string(),
  group_ratio: z.record(z.string(), z.number()),
  /** Quota units per US dollar (QuotaPerUnit). */
  quota_per_unit: z.number(),
});
export type PricingAnswer = z.infer<typeof pricingAnswerSchema>;
