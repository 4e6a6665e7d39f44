import { z } from 'zod';

/**
 * The playground's conversations as the browser keeps them (storage key `playground`), also the shape
 * of their JSON export.
 */

export const clientFormatSchema = z.enum(['openai', 'anthropic', 'responses']);
export const reasoningEffortSchema = z.enum(['low', 'medium', 'high']);

/** What a reply cost and took. */
export const replyStatsSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  cacheReadTokens: z.number(),
  cacheWriteTokens: z.number(),
  /** Quota units by the billing's formula; absent when the model has no price in /api/pricing. */
  quota: z.number().optional(),
  firstByteMs: z.number().optional(),
  totalMs: z.number().optional(),
});

export const storedTurnSchema = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  /** A user's images, as data URLs. */
  images: z.array(z.string()).optional(),
  reasoning: z.string().optional(),
  error: z.string().optional(),
  stopped: z.boolean().optional(),
  /** A reply's model and format (the settings may change between replies). */
  model: z.string().optional(),
  format: clientFormatSchema.optional(),
  stats: replyStatsSchema.optional(),
});
export type StoredTurn = z.infer<typeof storedTurnSchema>;

export const conversationSettingsSchema = z.object({
  format: clientFormatSchema,
  model: z.string(),
  system: z.string(),
  temperature: z.number().optional(),
  maxTokens: z.number().optional(),
  effort: reasoningEffortSchema.optional(),
});
export type ConversationSettings = z.infer<typeof conversationSettingsSchema>;

export const storedConversationSchema = z.object({
  id: z.string(),
  /** The user it belongs to: a browser shared by several users shows each their own. */
  userId: z.number(),
  title: z.string(),
  /** Milliseconds since the epoch. */
  updatedAt: z.number(),
  settings: conversationSettingsSchema,
  turns: z.array(storedTurnSchema),
});
export type StoredConversation = z.infer<typeof storedConversationSchema>;

export const storedConversationsSchema = z.array(storedConversationSchema);
