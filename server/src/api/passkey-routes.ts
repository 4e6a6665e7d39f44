import {
  passkeyLoginRequestSchema,
  passkeyRegisterRequestSchema,
  passkeyRenameRequestSchema,
} from '@sluice/contract/schemas/passkey';
import { ROLES } from '@sluice/contract/roles';
import { USER_STATUS } from '@sluice/contract/statuses';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { businessError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { USER_BANNED } from '../services/oauth-service.js';
import { PASSKEY_TIMEOUT_SECONDS } from '../services/passkey-service.js';
import type { Services } from '../services/services.js';
import type { SessionData } from '../services/session-store.js';
import { toLoginRecord } from '../services/user-record.js';
import type { AppEnv } from '../http/app-env.js';
import { requireRole } from './middleware/auth.js';
import { ok, readId, readJson } from './respond.js';
import { recordOwnSecondFactor } from './second-factor-audit.js';
import { saveSessionData, startUserSession } from './session-helpers.js';
import { attemptSignIn, pendingSignIn, recordSignIn } from './sign-in-flow.js';

export const PASSKEY_CHALLENGE_EXPIRED = 'the passkey request has expired or was used: try again';
export const PASSKEY_OTHER_USER = 'this passkey belongs to another account';

const NO_CHALLENGE: SessionData = {
  webauthn_challenge: undefined,
  webauthn_purpose: undefined,
  webauthn_until: undefined,
};

/**
 * Passkeys under /api/user: the caller's (list, register, rename, delete) and the sign-in with one,
 * alone (a discoverable passkey, user verified) or as the second factor of a sign-in waiting for it.
 * Each ceremony's challenge is kept in the session for PASSKEY_TIMEOUT_SECONDS and used once.
 */
export const passkeyRoutes = (services: Services, critical: MiddlewareHandler) => {
  const routes = new Hono<AppEnv>({ strict: false });
  const enrolling = requireRole(services, ROLES.common, { enrolling: true });
  const signedIn = requireRole(services, ROLES.common);
  const passkeys = services.passkeys;

  const keepChallenge = (c: Context<AppEnv>, challenge: string, purpose: 'register' | 'login') =>
    saveSessionData(c, services, {
      webauthn_challenge: challenge,
      webauthn_purpose: purpose,
      webauthn_until: nowSeconds() + PASSKEY_TIMEOUT_SECONDS,
    });
  /** The session's challenge for `purpose`, taken out of it whatever it is (a second try needs a new one). */
  const takeChallenge = async (c: Context<AppEnv>, purpose: 'register' | 'login'): Promise<string> => {
    const data = c.get('session')?.data;
    const challenge = data?.webauthn_challenge;
    if (challenge !== undefined) await saveSessionData(c, services, NO_CHALLENGE);
    if (!challenge || data?.webauthn_purpose !== purpose || (data.webauthn_until ?? 0) < nowSeconds())
      throw businessError(PASSKEY_CHALLENGE_EXPIRED);
    return challenge;
  };
  const waitingUser = (c: Context<AppEnv>): number | undefined => {
    const data = c.get('session')?.data;
    return data?.mfa_user && (data.mfa_until ?? 0) >= nowSeconds() ? data.mfa_user : undefined;
  };

  routes.get('/passkey', enrolling, async (c) => ok(c, await passkeys.list(c.get('user').id)));
  routes.post('/passkey/register/options', enrolling, async (c) => {
    const options = await passkeys.registrationOptions(c.get('user'));
    await keepChallenge(c, options.challenge, 'register');
    return ok(c, options);
  });
  routes.post('/passkey/register', enrolling, critical, async (c) => {
    const input = await readJson(c, passkeyRegisterRequestSchema);
    const challenge = await takeChallenge(c, 'register');
    const user = c.get('user');
    await passkeys.register(user.id, input.name, input.response as RegistrationResponseJSON, challenge);
    await recordOwnSecondFactor(c, services, 'enable', {
      before: null,
      after: { passkey: input.name },
      detail: `passkey: ${input.name}`,
    });
    return ok(c);
  });
  routes.put('/passkey/:id', signedIn, async (c) => {
    const { name } = await readJson(c, passkeyRenameRequestSchema);
    await passkeys.rename(c.get('user').id, readId(c), name);
    return ok(c);
  });
  routes.delete('/passkey/:id', signedIn, async (c) => {
    const name = await passkeys.remove(c.get('user').id, readId(c));
    await recordOwnSecondFactor(c, services, 'disable', {
      before: { passkey: name },
      after: null,
      detail: `passkey: ${name}`,
    });
    return ok(c);
  });

  /** A sign-in's challenge: the waiting user's passkeys as a second factor, else any discoverable one. */
  routes.post('/passkey/login/options', critical, async (c) => {
    const options = await passkeys.authenticationOptions(waitingUser(c));
    await keepChallenge(c, options.challenge, 'login');
    return ok(c, options);
  });
  routes.post('/passkey/login', critical, async (c) => {
    const { response } = await readJson(c, passkeyLoginRequestSchema);
    const assertion = response as AuthenticationResponseJSON;
    const challenge = await takeChallenge(c, 'login');
    if (waitingUser(c) !== undefined) {
      const { user, method } = await pendingSignIn(c, services);
      await attemptSignIn(c, services, `${method}+passkey`, user.username, async () => {
        const signed = await passkeys.authenticate(assertion, challenge, false);
        if (signed.userId !== user.id) throw businessError(PASSKEY_OTHER_USER);
      });
      await startUserSession(c, services, user.id);
      await recordSignIn(c, services, `${method}+passkey`, { user });
      return ok(c, toLoginRecord(user));
    }
    // A refusal is recorded under the name of the passkey's owner, when it is one of this site's.
    const ownerId = await passkeys.ownerOf(assertion.id);
    const owner = ownerId === undefined ? undefined : await services.users.findById(ownerId);
    const user = await attemptSignIn(c, services, 'passkey', owner?.username ?? '', async () => {
      const signed = await passkeys.authenticate(assertion, challenge, true);
      const account = await services.users.findById(signed.userId);
      if (!account || account.status !== USER_STATUS.enabled) throw businessError(USER_BANNED);
      return account;
    });
    await startUserSession(c, services, user.id);
    await recordSignIn(c, services, 'passkey', { user });
    return ok(c, toLoginRecord(user));
  });

  return routes;
};
