import { z } from 'zod';
import { parseJson } from '../parse-json.js';

/**
 * Rate limits a key, a user or a group may carry: requests per minute, tokens per minute (prompt +
 * completion as billed) and requests in flight at once. Unset (null, or 0 from a form) is no limit.
 */
export const RATE_LIMIT_FIELDS = ['rpm_limit', 'tpm_limit', 'concurrency_limit'] as const;
export type RateLimitField = (typeof RATE_LIMIT_FIELDS)[number];

/**
 * Budgets a key or a user may carry, in quota units: what may be spent per rolling 5 hours, per day,
 * per week and per month (calendar windows in BudgetTimeZone, or rolling: BudgetWindowMode).
 */
export const BUDGET_FIELDS = ['budget_5h', 'budget_daily', 'budget_weekly', 'budget_monthly'] as const;
export type BudgetField = (typeof BUDGET_FIELDS)[number];

/** The budgets' windows, in BUDGET_FIELDS' order. */
export const BUDGET_WINDOWS = ['5h', 'daily', 'weekly', 'monthly'] as const;
export type BudgetWindow = (typeof BUDGET_WINDOWS)[number];

/**
 * A budget's window as its key or user spends it: the budget, what the window holds (requests in
 * flight at their estimate) and when a calendar window starts over (Unix seconds; null: rolling).
 */
export const budgetWindowUsageSchema = z.object({
  window: z.enum(BUDGET_WINDOWS),
  limit: z.number(),
  used: z.number(),
  resets_at: z.number().nullable(),
});
export type BudgetWindowUsage = z.infer<typeof budgetWindowUsageSchema>;

export const LIMIT_FIELDS = [...RATE_LIMIT_FIELDS, ...BUDGET_FIELDS] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

/** The largest value a limit takes: beyond it no count could reach it anyway. */
export const MAX_LIMIT_VALUE = 1_000_000_000_000_000;

/** A limit or budget as stored and answered: a whole number, or null when unset. */
export type LimitValues = Readonly<Record<LimitField, number | null>>;

const limitValue = (name: string) =>
  z
    .number({ error: `${name} must be a whole number (0 or empty: no limit)` })
    .int(`${name} must be a whole number (0 or empty: no limit)`)
    .min(0, `${name} cannot be negative`)
    .max(MAX_LIMIT_VALUE, `${name} is too large`)
    .nullable()
    // 0 from a form is "no limit": stored as null, as a row one-api wrote has it.
    .transform((value) => (value === 0 ? null : value));

/** The limit fields of a create or update body: each optional (absent: unchanged on update). */
export const limitFieldsSchema = Object.fromEntries(
  LIMIT_FIELDS.map((field) => [field, limitValue(field).optional()]),
) as Record<LimitField, z.ZodOptional<ReturnType<typeof limitValue>>>;

/** The limit fields of a record (token or user), as the server answers them (absent: unset). */
export const limitRecordSchema = Object.fromEntries(
  LIMIT_FIELDS.map((field) => [field, z.number().nullable().default(null)]),
) as Record<LimitField, z.ZodDefault<z.ZodNullable<z.ZodNumber>>>;

/** One group's rate limits in the GroupRateLimits option (shared by every user of the group). */
export const groupRateLimitSchema = z
  .object({
    rpm: z.number().int().min(0).max(MAX_LIMIT_VALUE).optional(),
    tpm: z.number().int().min(0).max(MAX_LIMIT_VALUE).optional(),
    concurrency: z.number().int().min(0).max(MAX_LIMIT_VALUE).optional(),
  })
  .strict();
export type GroupRateLimit = z.infer<typeof groupRateLimitSchema>;
export type GroupRateLimits = Readonly<Record<string, GroupRateLimit>>;

const groupRateLimitsSchema = z.record(z.string().min(1).max(32), groupRateLimitSchema);

export const GROUP_RATE_LIMITS_MESSAGE =
  'GroupRateLimits must be a JSON object of group names and their limits, each a non-negative whole number, e.g. {"vip": {"rpm": 60, "tpm": 100000, "concurrency": 5}}';

/** Reads the GroupRateLimits option's text (empty: no group limits). */
export const readGroupRateLimits = (
  text: string,
): { ok: true; limits: GroupRateLimits } | { ok: false; message: string } => {
  if (text.trim() === '') return { ok: true, limits: {} };
  const parsed = groupRateLimitsSchema.safeParse(parseJson(text));
  return parsed.success
    ? { ok: true, limits: parsed.data }
    : { ok: false, message: GROUP_RATE_LIMITS_MESSAGE };
};

/** How budget windows are counted: calendar days, weeks (from Monday) and months, or rolling ones. */
export const BUDGET_WINDOW_MODES = ['calendar', 'rolling'] as const;
export type BudgetWindowMode = (typeof BUDGET_WINDOW_MODES)[number];

/** True for a time zone the runtime knows (IANA names such as Asia/Shanghai, or UTC). */
export const isTimeZone = (value: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value.trim() !== '';
  } catch {
    return false;
  }
};
