import { z } from 'zod';
import { pageQuerySchema } from './common.js';

/**
 * The client formats a relayed request may come in: OpenAI's (chat, completions, embeddings, …),
 * Anthropic's Messages, OpenAI's Responses, Gemini's generateContent. A consumption log row says which.
 */
export const CLIENT_FORMATS = ['openai', 'anthropic', 'responses', 'gemini'] as const;
export type ClientFormat = (typeof CLIENT_FORMATS)[number];

/** One attempt of a relayed request: the channel, its key (by place), the status, the error's code, the time. */
export const logAttemptSchema = z.object({
  channel: z.number(),
  key: z.number(),
  status: z.number(),
  reason: z.string(),
  ms: z.number(),
});
export type LogAttempt = z.infer<typeof logAttemptSchema>;

/** How a consumption row's request was routed: the strategy, whether affinity chose it, its attempts in order. */
export const logRoutingSchema = z.object({
  strategy: z.string(),
  affinity: z.boolean(),
  attempts: z.array(logAttemptSchema),
});
export type LogRouting = z.infer<typeof logRoutingSchema>;

/** One row of the logs table as the server sends it (`channel` is the `channel_id` column). */
export const logSchema = z.object({
  id: z.number(),
  user_id: z.number(),
  created_at: z.number(),
  type: z.number(),
  content: z.string(),
  username: z.string(),
  token_name: z.string(),
  model_name: z.string(),
  quota: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  channel: z.number(),
  request_id: z.string(),
  elapsed_time: z.number(),
  is_stream: z.boolean(),
  /** The request's client format (CLIENT_FORMATS); '' on rows one-api or an older Sluice wrote. */
  client_format: z.string(),
  /** Sluice's own: present on consumption rows Sluice wrote since it records them. */
  routing: logRoutingSchema.optional(),
});
export type Log = z.infer<typeof logSchema>;

/** GET /api/log/stat: consumption totals of the filtered rows. */
export const logStatSchema = z.object({ quota: z.number(), token: z.number() });
export type LogStat = z.infer<typeof logStatSchema>;

/** Longest text filter: the width of the logs table's varchar columns. */
export const LOG_FILTER_MAX = 191;
/** Latest accepted Unix time (9999-12-31T23:59:59Z). */
export const MAX_TIMESTAMP = 253_402_300_799;
/** The time zone offset of usage queries, in minutes east of UTC. */
export const TZ_OFFSET_LIMIT = 840;
/** Widest range of a usage query. */
export const USAGE_MAX_DAYS = 366;

/**
 * An integer query parameter: missing or empty is 0 ("not set"); anything that is not a whole number
 * in range is a clear error naming the parameter.
 */
export const integerParam = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^([+-]?\d{1,16})?$/, 'must be a whole number')
    .transform((value) => (value === '' ? 0 : Number(value)))
    .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
    .optional()
    .default(0);

/** A text filter, trimmed; missing is '' (any). */
export const textParam = z
  .string()
  .trim()
  .max(LOG_FILTER_MAX, `must be at most ${LOG_FILTER_MAX} characters`)
  .optional()
  .default('');

const timestampParam = integerParam(0, MAX_TIMESTAMP);

/** A client format to filter by; missing or empty is '' (any). */
const clientFormatParam = z
  .string()
  .trim()
  .pipe(z.enum(['', ...CLIENT_FORMATS], { error: `must be one of ${CLIENT_FORMATS.join(', ')}` }))
  .optional()
  .default('');
const idParam = integerParam(0, 2_147_483_647);

/** The filters of GET /api/log/self/* (the caller's own logs; no username or channel filter). */
export const ownLogFilterSchema = z.object({
  type: idParam,
  token_name: textParam,
  model_name: textParam,
  start_timestamp: timestampParam,
  end_timestamp: timestampParam,
  client_format: clientFormatParam,
});
export type OwnLogFilter = z.infer<typeof ownLogFilterSchema>;

/** The filters of the admin GET /api/log/* routes: every row, by username and channel too. */
export const logFilterSchema = ownLogFilterSchema.extend({
  username: textParam,
  channel: idParam,
});
export type LogFilter = z.infer<typeof logFilterSchema>;

/**
 * Sluice's own list filter: the rows of one request (its `x-sluice-request-id`), e.g. what a reply
 * the playground stopped was billed. Lists only: the statistics come from roll-ups, which have none.
 */
const requestIdFilter = { request_id: textParam };

export const ownLogListQuerySchema = ownLogFilterSchema.extend({
  ...pageQuerySchema.shape,
  ...requestIdFilter,
});
export const logListQuerySchema = logFilterSchema.extend({ ...pageQuerySchema.shape, ...requestIdFilter });
export type OwnLogListQuery = z.infer<typeof ownLogListQuerySchema>;
export type LogListQuery = z.infer<typeof logListQuerySchema>;

/** GET /api/log/search and /api/log/self/search. */
export const logSearchQuerySchema = z.object({ keyword: textParam });

/** DELETE /api/log/?target_timestamp=: anything but a positive Unix time reads as missing (0). */
export const deleteLogsQuerySchema = z.object({ target_timestamp: timestampParam.catch(0) });

/** GET /api/log/self/usage: a missing range is the last 7 days; days are cut at the caller's midnight. */
export const ownUsageQuerySchema = z.object({
  start_timestamp: timestampParam,
  end_timestamp: timestampParam,
  tz_offset: integerParam(-TZ_OFFSET_LIMIT, TZ_OFFSET_LIMIT),
});
export type OwnUsageQuery = z.infer<typeof ownUsageQuerySchema>;

/** GET /api/log/usage: all users, one user or one channel. */
export const usageQuerySchema = ownUsageQuerySchema.extend({ username: textParam, channel: idParam });
export type UsageQuery = z.infer<typeof usageQuerySchema>;

const usageTotals = {
  requests: z.number(),
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  quota: z.number(),
};

export const usageDaySchema = z.object({ day: z.string(), ...usageTotals });
export const usageModelSchema = z.object({ model_name: z.string(), ...usageTotals });
export const usageSchema = z.object({ days: z.array(usageDaySchema), models: z.array(usageModelSchema) });
export type UsageDay = z.infer<typeof usageDaySchema>;
export type UsageModel = z.infer<typeof usageModelSchema>;
export type Usage = z.infer<typeof usageSchema>;

/** GET /api/user/dashboard (one-api): Go field names, one row per day and model. */
export const dashboardRowSchema = z.object({
  Day: z.string(),
  ModelName: z.string(),
  RequestCount: z.number(),
  Quota: z.number(),
  PromptTokens: z.number(),
  CompletionTokens: z.number(),
});
export type DashboardRow = z.infer<typeof dashboardRowSchema>;
