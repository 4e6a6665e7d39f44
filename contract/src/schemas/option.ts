import { z } from 'zod';

export const optionSchema = z.object({ key: z.string(), value: z.string() });
export type Option = z.infer<typeof optionSchema>;

/** PUT /api/option/: the value must be a string, as the console always sends. */
export const updateOptionRequestSchema = z.object({
  key: z.string().trim().min(1, 'key is required').max(64, 'key is too long'),
  value: z.string({ error: 'value must be a string' }).max(1_000_000, 'value is too long'),
});
export type UpdateOptionRequest = z.infer<typeof updateOptionRequestSchema>;
