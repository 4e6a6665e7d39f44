import { z } from 'zod';

/** The `/api` envelope. */
export const envelopeSchema = <T extends z.ZodType>(data: T) =>
  z.object({ success: z.boolean(), message: z.string(), data: data.optional() });

export interface Envelope<T> {
  success: boolean;
  message: string;
  data?: T;
}

/** A page index from 0; anything negative or missing is page 0. */
export const pageQuerySchema = z.object({
  p: z.coerce
    .number()
    .int()
    .catch(0)
    .transform((page) => Math.max(page, 0)),
});
