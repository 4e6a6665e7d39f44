import type { z } from 'zod';

/**
 * The one reading of a zod failure for a client or an operator: its first issue, prefixed by the
 * path of the field it is about (`messages.0.role: …`). With `unlessQuoted`, a message that already
 * begins with its path is not prefixed again.
 */
export const describeZodIssue = (error: z.ZodError, fallback: string, unlessQuoted = false): string => {
  const issue = error.issues[0];
  if (!issue) return fallback;
  const path = issue.path.join('.');
  if (path === '' || (unlessQuoted && issue.message.startsWith(path))) return issue.message;
  return `${path}: ${issue.message}`;
};
