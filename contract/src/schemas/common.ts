import { z } from 'zod';

/** The `/api` envelope. */
export const envelopeSchema = <T extends z.ZodType>(data: T) =>
  z.object({ success: z.boolean(), message: z.string(), data: data.optional() });

export interface Envelope<T> {
  success: boolean;
  message: string;
  data?: T;
}

/** Page sizes a list offers (one-api's `size` takes up to 100); 10 is one-api's ITEMS_PER_PAGE. */
export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;

/**
 * A page index from 0 (anything negative or missing is page 0) and its size (`size`, as one-api's
 * token list reads it: missing or below 1 is 10, above 100 is 100).
 */
export const pageQuerySchema = z.object({
  p: z.coerce
    .number()
    .int()
    .catch(0)
    .transform((page) => Math.max(page, 0)),
  size: z.coerce
    .number()
    .int()
    .catch(DEFAULT_PAGE_SIZE)
    .transform((size) => (size < 1 ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE))),
});

/**
 * A page of a list: one-api's envelope with the rows in `data`, and Sluice's `total` (every row the
 * list holds) beside it, a field one-api's clients ignore.
 */
export const pageAnswerSchema = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item).default([]), total: z.number().int().nonnegative() });
