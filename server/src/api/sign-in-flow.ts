import type { SignInChallenge } from '@sluice/contract/schemas/two-factor';
import { USER_STATUS } from '@sluice/contract/statuses';
import type { Context } from 'hono';
import { businessError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import type { Services } from '../services/services.js';
import { toLoginRecord, type UserRow } from '../services/user-record.js';
import type { AppEnv } from '../http/app-env.js';
import { auditIpOf } from './middleware/audit-trail.js';
import { ok } from './respond.js';
import { replaceSession, startUserSession } from './session-helpers.js';

/** How the first step of a sign-in was passed: the password form or a third party. */
export type SignInMethod = 'password' | 'github' | 'lark' | 'wechat' | 'oidc' | 'passkey';

/** How long a sign-in waits for its second factor. */
export const SECOND_FACTOR_SECONDS = 300;
export const SIGN_IN_EXPIRED = 'the sign-in has expired or was not started: sign in again';

interface SignInUser {
  readonly id: number;
  readonly username: string;
  readonly role: number;
}

/** One sign-in as an audit row: the user, or the name that was typed for a failure. */
export const recordSignIn = async (
  c: Context<AppEnv>,
  services: Services,
  detail: string,
  outcome: { readonly user: SignInUser } | { readonly username: string; readonly reason: string },
): Promise<void> => {
  const ip = auditIpOf(c, services);
  const success = 'user' in outcome;
  try {
    await services.audit.record({
      actor: success ? outcome.user : { id: 0, username: outcome.username, role: 0 },
      ip,
      action: success ? 'sign_in' : 'sign_in_failed',
      object: 'session',
      objectId: success ? String(outcome.user.id) : '',
      detail: success ? detail : `${detail}: ${outcome.reason}`,
    });
  } catch (error) {
    services.deps.logger.error({ err: error }, 'audit row of a sign-in not written');
  }
};

/** Runs a step of a sign-in; a refusal is recorded (with the name typed and the reason) and thrown on. */
export const attemptSignIn = async <T>(
  c: Context<AppEnv>,
  services: Services,
  detail: string,
  username: string,
  attempt: () => Promise<T>,
): Promise<T> => {
  try {
    return await attempt();
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'refused';
    await recordSignIn(c, services, detail, { username, reason });
    throw error;
  }
};

/**
 * Ends a sign-in whose first step passed: a user with a second factor gets a session that is not
 * signed in (user 0) and waits SECOND_FACTOR_SECONDS for it (`{require_2fa: true, …}`); anyone
 * else is signed in, recorded, and answered their login record.
 */
export const finishSignIn = async (
  c: Context<AppEnv>,
  services: Services,
  user: UserRow,
  method: SignInMethod,
) => {
  const factors = await services.twoFactor.factorsOf(user.id);
  if (factors.totp || factors.passkey) {
    await replaceSession(c, services, 0, {
      mfa_user: user.id,
      mfa_until: nowSeconds() + SECOND_FACTOR_SECONDS,
      mfa_method: method,
    });
    const challenge: SignInChallenge = { require_2fa: true, ...factors };
    return ok(c, challenge);
  }
  await startUserSession(c, services, user.id);
  await recordSignIn(c, services, method, { user });
  return ok(c, toLoginRecord(user));
};

/** The user a session's pending sign-in is for; a missing, expired or refused one is an error. */
export const pendingSignIn = async (
  c: Context<AppEnv>,
  services: Services,
): Promise<{ user: UserRow; method: string }> => {
  const data = c.get('session')?.data;
  if (!data?.mfa_user || (data.mfa_until ?? 0) < nowSeconds()) throw businessError(SIGN_IN_EXPIRED);
  const user = await services.users.findById(data.mfa_user);
  if (!user || user.status !== USER_STATUS.enabled) throw businessError(SIGN_IN_EXPIRED);
  return { user, method: data.mfa_method ?? 'password' };
};
