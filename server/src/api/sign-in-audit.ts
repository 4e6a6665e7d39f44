import type { Context } from 'hono';
import type { Services } from '../services/services.js';
import type { AppEnv } from '../http/app-env.js';
import { auditIpOf } from './middleware/audit-trail.js';

/** How someone signed in: the password form, a third party, a second factor. */
export type SignInMethod = 'password' | 'github' | 'lark' | 'wechat';

interface SignInUser {
  readonly id: number;
  readonly username: string;
  readonly role: number;
}

/** One sign-in, as an audit row: the user, or the name that was typed for a failure. */
export const recordSignIn = async (
  c: Context<AppEnv>,
  services: Services,
  method: SignInMethod,
  outcome: { readonly user: SignInUser } | { readonly username: string; readonly reason: string },
): Promise<void> => {
  const ip = auditIpOf(c, services);
  try {
    await ('user' in outcome
      ? services.audit.record({
          actor: outcome.user,
          ip,
          action: 'sign_in',
          object: 'session',
          objectId: String(outcome.user.id),
          detail: method,
        })
      : services.audit.record({
          actor: { id: 0, username: outcome.username, role: 0 },
          ip,
          action: 'sign_in_failed',
          object: 'session',
          objectId: '',
          detail: `${method}: ${outcome.reason}`,
        }));
  } catch (error) {
    services.deps.logger.error({ err: error }, 'audit row of a sign-in not written');
  }
};

/**
 * Runs a sign-in attempt and records it: its user on success, the name typed and the reason on
 * failure (the failure is thrown on unchanged).
 */
export const auditedSignIn = async <T extends SignInUser>(
  c: Context<AppEnv>,
  services: Services,
  method: SignInMethod,
  username: string,
  attempt: () => Promise<T>,
): Promise<T> => {
  let user: T;
  try {
    user = await attempt();
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'refused';
    await recordSignIn(c, services, method, { username, reason });
    throw error;
  }
  await recordSignIn(c, services, method, { user });
  return user;
};
