import { z } from 'zod';

export const redemptionSchema = z.object({
  id: z.number(),
  user_id: z.number(),
  key: z.string(),
  status: z.number(),
  name: z.string(),
  quota: z.number(),
  created_time: z.number(),
  redeemed_time: z.number(),
});
export type Redemption = z.infer<typeof redemptionSchema>;

export const REDEMPTION_LIMITS = { nameMaxBytes: 20, maxCount: 100 } as const;

const utf8Length = (value: string) => new TextEncoder().encode(value).length;

const name = z
  .string()
  .trim()
  .refine((value) => utf8Length(value) >= 1 && utf8Length(value) <= REDEMPTION_LIMITS.nameMaxBytes, {
    message: 'name length must be 1-20',
  });
const quota = z
  .number()
  .int('quota must be a whole number')
  .positive('quota must be greater than 0')
  .max(Number.MAX_SAFE_INTEGER);

export const createRedemptionRequestSchema = z.object({
  name,
  quota,
  count: z
    .number()
    .int('count must be a whole number')
    .min(1, 'count must be greater than 0')
    .max(REDEMPTION_LIMITS.maxCount, 'cannot generate more than 100 codes at once')
    .default(1),
});
export type CreateRedemptionRequest = z.infer<typeof createRedemptionRequestSchema>;

export const updateRedemptionRequestSchema = z.object({
  id: z.number().int().positive('id is required'),
  name,
  quota,
});

export const redemptionStatusRequestSchema = z.object({
  id: z.number().int().positive('id is required'),
  status: z.union([z.literal(1), z.literal(2)], { error: 'status must be 1 (enabled) or 2 (disabled)' }),
});

export const redeemRequestSchema = z.object({
  key: z.string().trim().min(1, 'no redemption code provided').max(64, 'invalid redemption code'),
});
