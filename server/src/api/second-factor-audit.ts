import type { Context } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { auditActorOf, auditIpOf } from './middleware/audit-trail.js';

/**
 * A user's own change to their second factors (TOTP on or off, a passkey added or removed) as an
 * audit row: not administration, but what a security team reads after an account was taken over.
 */
export const recordOwnSecondFactor = async (
  c: Context<AppEnv>,
  services: Services,
  action: 'enable' | 'disable',
  change: { readonly before: unknown; readonly after: unknown; readonly detail?: string },
): Promise<void> => {
  const actor = auditActorOf(c);
  if (!actor) return;
  await services.audit.record({
    actor,
    ip: auditIpOf(c, services),
    action,
    object: 'two_factor',
    objectId: String(actor.id),
    ...change,
  });
};
