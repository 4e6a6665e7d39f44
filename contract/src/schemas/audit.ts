import { z } from 'zod';
import { pageQuerySchema } from './common.js';
import { integerParam, MAX_TIMESTAMP, textParam } from './log.js';

/** What an audit row is about: the kind of object an administrator changed, or a sign-in. */
export const AUDIT_OBJECTS = [
  'channel',
  'user',
  'option',
  'redemption',
  'log',
  'session',
  'two_factor',
] as const;
export type AuditObject = (typeof AUDIT_OBJECTS)[number];

/** What was done to it. */
export const AUDIT_ACTIONS = [
  'create',
  'update',
  'update_status',
  'delete',
  'delete_disabled',
  'manage',
  'top_up',
  'enable',
  'disable',
  'reset',
  'sign_in',
  'sign_in_failed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** The text that replaces a secret (a key, password, token or client secret) in an audit row. */
export const MASKED = '[masked]';
/** The text of a masked secret that a change replaced (so a key rotation shows without the key). */
export const MASKED_CHANGED = '[masked, changed]';

/** One row of the audit log as the server sends it; `before` and `after` are JSON texts or null. */
export const auditRowSchema = z.object({
  id: z.number(),
  created_at: z.number(),
  user_id: z.number(),
  username: z.string(),
  role: z.number(),
  ip: z.string(),
  action: z.string(),
  object_type: z.string(),
  object_id: z.string(),
  before: z.string().nullable(),
  after: z.string().nullable(),
  detail: z.string(),
});
export type AuditRow = z.infer<typeof auditRowSchema>;

/** A value of a table, or '' (any); anything else is a clear error naming the choices. */
const choiceParam = <T extends readonly [string, ...string[]]>(choices: T) =>
  z
    .string()
    .trim()
    .pipe(z.enum(['', ...choices], { error: `must be one of ${choices.join(', ')}` }))
    .optional()
    .default('');

/** The filters of GET /api/audit and /api/audit/export: who, object type, action, time range. */
export const auditFilterSchema = z.object({
  username: textParam,
  object_type: choiceParam(AUDIT_OBJECTS),
  action: choiceParam(AUDIT_ACTIONS),
  start_timestamp: integerParam(0, MAX_TIMESTAMP),
  end_timestamp: integerParam(0, MAX_TIMESTAMP),
});
export type AuditFilter = z.infer<typeof auditFilterSchema>;

export const auditListQuerySchema = auditFilterSchema.extend(pageQuerySchema.shape);
