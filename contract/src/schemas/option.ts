import { z } from 'zod';

export const optionSchema = z.object({ key: z.string(), value: z.string() });
export type Option = z.infer<typeof optionSchema>;

/** PUT /api/option/: the value must be a string, as the console always sends. */
export const updateOptionRequestSchema = z.object({
  key: z.string().trim().min(1, 'key is required').max(64, 'key is too long'),
  value: z.string({ error: 'value must be a string' }).max(1_000_000, 'value is too long'),
});
export type UpdateOptionRequest = z.infer<typeof updateOptionRequestSchema>;

/**
 * The most options one PUT /api/option/batch writes: a settings section has a handful, and every
 * option the server serves fits in one batch (a guard against absurd bodies, not a working limit).
 */
export const OPTION_BATCH_MAX = 128;

/**
 * PUT /api/option/batch (Sluice's own): several options written all or nothing, each as
 * PUT /api/option/ takes it; a key at most once.
 */
export const updateOptionsRequestSchema = z
  .array(updateOptionRequestSchema)
  .min(1, 'at least one option is required')
  .max(OPTION_BATCH_MAX, `at most ${OPTION_BATCH_MAX} options at once`)
  .refine((updates) => new Set(updates.map(({ key }) => key)).size === updates.length, {
    error: 'each key at most once',
  });
export type UpdateOptionsRequest = z.infer<typeof updateOptionsRequestSchema>;
