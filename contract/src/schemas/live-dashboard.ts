import { z } from 'zod';

/**
 * The live dashboard (GET /api/dashboard/live for administrators, GET /api/user/dashboard/live for
 * the caller's own): per-minute counters of the relay over the last hour, kept by the server
 * (shared through Redis when it is set), not read from the logs.
 */

/** One minute: its start (Unix seconds), the requests answered and billed in it, and their tokens. */
export const liveMinuteSchema = z.object({
  minute: z.number(),
  requests: z.number(),
  tokens: z.number(),
});
export type LiveMinute = z.infer<typeof liveMinuteSchema>;

/** A channel over the hour: its attempts, the failed ones, and the answered ones' mean first-byte time. */
export const liveChannelSchema = z.object({
  channel_id: z.number(),
  attempts: z.number(),
  errors: z.number(),
  error_rate: z.number(),
  first_byte_ms: z.number().nullable(),
});
export type LiveChannel = z.infer<typeof liveChannelSchema>;

/** A model over the hour: prompt tokens, the cached part of them, and their ratio. */
export const liveModelSchema = z.object({
  model: z.string(),
  prompt_tokens: z.number(),
  cached_tokens: z.number(),
  cache_hit_rate: z.number().nullable(),
});
export type LiveModel = z.infer<typeof liveModelSchema>;

/** A channel passed over by the breaker (cooled_until in Unix seconds) or disabled. */
export const liveChannelStateSchema = z.object({
  id: z.number(),
  name: z.string(),
  state: z.enum(['cooling', 'half_open', 'disabled']),
  cooled_until: z.number(),
});
export type LiveChannelState = z.infer<typeof liveChannelStateSchema>;

/** Requests and tokens in the last 60 seconds (the current minute and the part of the one before still inside). */
const rates = { rpm: z.number(), tpm: z.number() };

export const liveDashboardSchema = z.object({
  now: z.number(),
  minutes: z.array(liveMinuteSchema),
  ...rates,
  channels: z.array(liveChannelSchema),
  models: z.array(liveModelSchema),
  channel_states: z.array(liveChannelStateSchema),
});
export type LiveDashboard = z.infer<typeof liveDashboardSchema>;

/** The caller's own: their minutes and rates, and the quota they spent today (UTC day, from the logs). */
export const userLiveDashboardSchema = z.object({
  now: z.number(),
  minutes: z.array(liveMinuteSchema),
  ...rates,
  spent_today: z.number(),
});
export type UserLiveDashboard = z.infer<typeof userLiveDashboardSchema>;
