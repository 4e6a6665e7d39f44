import { z } from 'zod';
import { parseJson } from '../parse-json.js';
import { USER_LIMITS } from './user.js';

/** OidcGroupMapping: a value of the group claim → the Sluice group a user with it is put in. */
export const oidcGroupMappingSchema = z.record(
  z.string().min(1),
  z.string().trim().min(1, 'a group name is required').max(USER_LIMITS.groupMax, 'a group name is too long'),
);
export type OidcGroupMapping = z.infer<typeof oidcGroupMappingSchema>;

/** The mapping of a stored text, or why it is refused. */
export const readOidcGroupMapping = (
  text: string,
): { ok: true; mapping: OidcGroupMapping } | { ok: false; message: string } => {
  if (text.trim() === '') return { ok: true, mapping: {} };
  const parsed = oidcGroupMappingSchema.safeParse(parseJson(text));
  return parsed.success
    ? { ok: true, mapping: parsed.data }
    : {
        ok: false,
        message:
          'OidcGroupMapping must be a JSON object of claim values and group names, e.g. {"admins": "vip"}',
      };
};
