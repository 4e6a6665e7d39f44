import { z } from 'zod';
import { budgetWindowUsageSchema, limitFieldsSchema, limitRecordSchema } from './limits.js';
import { quotaAlertFieldsSchema, quotaAlertRecordSchema } from './quota-alerts.js';

/** Length limits of one-api's user validator. */
export const USER_LIMITS = {
  usernameMax: 12,
  passwordMin: 8,
  passwordMax: 20,
  displayNameMax: 20,
  emailMax: 50,
  groupMax: 32,
} as const;

export const usernameSchema = z
  .string()
  .trim()
  .min(1, 'username is required')
  .max(USER_LIMITS.usernameMax, `username must be at most ${USER_LIMITS.usernameMax} characters`);

export const passwordSchema = z
  .string()
  .min(
    USER_LIMITS.passwordMin,
    `password must be ${USER_LIMITS.passwordMin}-${USER_LIMITS.passwordMax} characters`,
  )
  .max(
    USER_LIMITS.passwordMax,
    `password must be ${USER_LIMITS.passwordMin}-${USER_LIMITS.passwordMax} characters`,
  );

export const displayNameSchema = z
  .string()
  .max(USER_LIMITS.displayNameMax, `display name must be at most ${USER_LIMITS.displayNameMax} characters`);

export const emailSchema = z
  .string()
  .trim()
  .max(USER_LIMITS.emailMax, `email must be at most ${USER_LIMITS.emailMax} characters`)
  .email('invalid email address');

/** The user record as the server sends it (never a password hash). */
export const userSchema = z.object({
  id: z.number(),
  username: z.string(),
  password: z.string(),
  display_name: z.string(),
  role: z.number(),
  status: z.number(),
  email: z.string(),
  github_id: z.string(),
  wechat_id: z.string(),
  lark_id: z.string(),
  oidc_id: z.string(),
  verification_code: z.string(),
  access_token: z.string(),
  quota: z.number(),
  used_quota: z.number(),
  request_count: z.number(),
  group: z.string(),
  aff_code: z.string(),
  inviter_id: z.number(),
  ...limitRecordSchema,
  /** Sluice's own: the quota alerts the user chose (null: the site's threshold; 0: off). */
  ...quotaAlertRecordSchema,
  /** Its budgets' windows as spent now (only when it has a budget). */
  budget_usage: z.array(budgetWindowUsageSchema).optional(),
});
export type User = z.infer<typeof userSchema>;

export const loginRequestSchema = z.object({
  username: z.string().trim().min(1, 'username is required').max(64, 'username is too long'),
  password: z.string().min(1, 'password is required').max(128, 'password is too long'),
});
export type LoginRequest = z.infer<typeof loginRequestSchema>;

export const registerRequestSchema = z.object({
  username: usernameSchema,
  password: passwordSchema,
  password2: z.string().max(128).optional(),
  email: z.string().trim().max(USER_LIMITS.emailMax).optional().default(''),
  verification_code: z.string().trim().max(64).optional().default(''),
  aff_code: z.string().trim().max(32).optional().default(''),
});
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

/**
 * PUT /api/user/self: a blank password keeps the old one; blank names are ignored. Sluice's own: the
 * user's quota alert thresholds (absent: unchanged; null: the site's; 0: off).
 */
export const updateSelfRequestSchema = z.object({
  username: z.union([usernameSchema, z.literal('')]).optional(),
  display_name: displayNameSchema.optional(),
  password: z.union([passwordSchema, z.literal('')]).optional(),
  ...quotaAlertFieldsSchema,
});
export type UpdateSelfRequest = z.infer<typeof updateSelfRequestSchema>;

/** Admin: POST /api/user/ */
export const createUserRequestSchema = z.object({
  username: usernameSchema,
  password: passwordSchema,
  display_name: displayNameSchema.optional().default(''),
  role: z.number().int().optional(),
});

/** Admin: PUT /api/user/ — only the fields present are written; quota may be 0, fields may be cleared. */
export const updateUserRequestSchema = z.object({
  id: z.number().int().positive('id is required'),
  username: z.union([usernameSchema, z.literal('')]).optional(),
  display_name: displayNameSchema.optional(),
  password: z.union([passwordSchema, z.literal('')]).optional(),
  email: z.union([emailSchema, z.literal('')]).optional(),
  quota: z
    .number()
    .int('quota must be a whole number')
    .min(0, 'quota cannot be negative')
    .max(Number.MAX_SAFE_INTEGER)
    .optional(),
  group: z
    .string()
    .trim()
    .max(USER_LIMITS.groupMax, `group must be at most ${USER_LIMITS.groupMax} characters`)
    .regex(/^[\w.,-]*$/, 'group may hold only letters, digits, _ . - and commas')
    .optional(),
  role: z.number().int().optional(),
  status: z.number().int().optional(),
  /** Sluice's own: the user's rate limits and budgets, set by an administrator. */
  ...limitFieldsSchema,
});
export type UpdateUserRequest = z.infer<typeof updateUserRequestSchema>;

export const USER_ACTIONS = ['disable', 'enable', 'delete', 'promote', 'demote'] as const;
export type UserAction = (typeof USER_ACTIONS)[number];

export const manageUserRequestSchema = z.object({
  username: z.string().trim().min(1, 'username is required').max(64),
  action: z.enum(USER_ACTIONS, { error: 'action must be one of disable, enable, delete, promote, demote' }),
});

/** Admin top-up for payment integrations: POST /api/topup */
export const adminTopUpRequestSchema = z.object({
  user_id: z.number().int().positive('user_id is required'),
  quota: z
    .number()
    .int('quota must be a whole number')
    .min(0, 'quota cannot be negative')
    .max(Number.MAX_SAFE_INTEGER),
  remark: z.string().max(255, 'remark is too long').optional().default(''),
});
