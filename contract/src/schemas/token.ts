import { z } from 'zod';
import { budgetWindowUsageSchema, limitFieldsSchema, limitRecordSchema } from './limits.js';

export const tokenSchema = z.object({
  id: z.number(),
  user_id: z.number(),
  key: z.string(),
  status: z.number(),
  name: z.string(),
  created_time: z.number(),
  accessed_time: z.number(),
  expired_time: z.number(),
  remain_quota: z.number(),
  unlimited_quota: z.boolean(),
  used_quota: z.number(),
  models: z.string(),
  subnet: z.string(),
  ...limitRecordSchema,
  /** Its budgets' windows as spent now (only when it has a budget). */
  budget_usage: z.array(budgetWindowUsageSchema).optional(),
});
export type Token = z.infer<typeof tokenSchema>;

/** Token names are at most 30 bytes (one-api). */
export const TOKEN_NAME_MAX_BYTES = 30;

const utf8Length = (value: string) => new TextEncoder().encode(value).length;

const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const ipv6 = /^[0-9a-fA-F:]+(:(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})?$/;

/** True for an IPv4 or IPv6 network range in CIDR notation (192.168.0.0/16, 2001:db8::/32). */
export const isCidr = (value: string): boolean => {
  const [address = '', prefix, ...rest] = value.split('/');
  if (prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  if (ipv4.test(address)) return bits <= 32;
  return (
    ipv6.test(address) && address.includes(':') && (address.match(/::/g) ?? []).length <= 1 && bits <= 128
  );
};

/** A comma list of CIDRs, whitespace trimmed; empty means any address. */
export const subnetSchema = z
  .string()
  .max(1024, 'subnet is too long')
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .join(','),
  )
  // varchar(191) on MySQL, as GORM makes the column (a default and no size).
  .refine((value) => value.length <= 191, 'subnet is too long (at most 191 characters)')
  .refine((value) => value === '' || value.split(',').every(isCidr), {
    message: 'invalid subnet: use comma-separated network ranges such as 192.168.0.0/16',
  });

const tokenFields = {
  name: z
    .string()
    .trim()
    .min(1, 'token name is required')
    .refine(
      (value) => utf8Length(value) <= TOKEN_NAME_MAX_BYTES,
      'token name is too long (at most 30 bytes)',
    ),
  remain_quota: z
    .number()
    .int('remain_quota must be a whole number')
    .min(-1)
    .max(Number.MAX_SAFE_INTEGER)
    .default(0),
  unlimited_quota: z.boolean().default(false),
  expired_time: z
    .number()
    .int('expired_time must be a whole number')
    .refine((value) => value === -1 || value > 0, 'expired_time must be -1 (never) or a Unix time')
    .default(-1),
  models: z.string().max(4096, 'models is too long').default(''),
  subnet: subnetSchema.default(''),
  /** Sluice's own: rate limits and budgets (absent: unchanged on update, unset on create). */
  ...limitFieldsSchema,
};

export const createTokenRequestSchema = z.object(tokenFields);
export type CreateTokenRequest = z.infer<typeof createTokenRequestSchema>;

export const updateTokenRequestSchema = z.object({
  id: z.number().int().positive('id is required'),
  status: z.number().int().optional(),
  ...tokenFields,
});
export type UpdateTokenRequest = z.infer<typeof updateTokenRequestSchema>;

export const tokenStatusRequestSchema = z.object({
  id: z.number().int().positive('id is required'),
  status: z.union([z.literal(1), z.literal(2)], { error: 'status must be 1 (enabled) or 2 (disabled)' }),
});
