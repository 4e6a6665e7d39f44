import type { Context } from 'hono';
import type { z } from 'zod';
import { invalidParameter } from '../lib/app-error.js';
import { describeZodIssue } from '../lib/zod-issue.js';

/** The success envelope. */
export const ok = (c: Context, data?: unknown, message = '') =>
  c.json(data === undefined ? { success: true, message } : { success: true, message, data });

/**
 * A page of a list: one-api's envelope with the rows in `data`, and `total` (every row of the list)
 * beside it for the console's pager; one-api's clients read `data` and ignore the rest.
 */
export const okPage = (c: Context, data: readonly unknown[], total: number) =>
  c.json({ success: true, message: '', data, total });

/** Parses the JSON body with a schema; bad JSON or a bad shape is a clear `invalid parameter`. */
export const readJson = async <T extends z.ZodType>(c: Context, schema: T): Promise<z.output<T>> => {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw invalidParameter('the body must be valid JSON');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidParameter(describeZodIssue(parsed.error, 'invalid input'));
  return parsed.data;
};

/** Parses the query string with a schema. */
export const readQuery = <T extends z.ZodType>(c: Context, schema: T): z.output<T> => {
  const parsed = schema.safeParse(c.req.query());
  if (!parsed.success) throw invalidParameter(describeZodIssue(parsed.error, 'invalid input'));
  return parsed.data;
};

/** A positive integer path parameter (`:id`); anything else is a clear invalid-parameter error. */
export const readId = (c: Context, name = 'id'): number => {
  const raw = c.req.param(name) ?? '';
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1)
    throw invalidParameter(`${name} must be a positive whole number`);
  return Number(raw);
};

/** The `keyword` of the search routes, trimmed; at most 191 characters. */
export const readKeyword = (c: Context): string => {
  const keyword = (c.req.query('keyword') ?? '').trim();
  if (keyword.length > 191) throw invalidParameter('keyword is too long');
  return keyword;
};
