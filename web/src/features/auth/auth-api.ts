import type { passwordResetRequestSchema } from '@sluice/contract/schemas/account';
import {
  signInChallengeSchema,
  twoFactorStatusSchema,
  type SignInChallenge,
  type twoFactorCodeRequestSchema,
} from '@sluice/contract/schemas/two-factor';
import type { loginRequestSchema, registerRequestSchema } from '@sluice/contract/schemas/user';
import { z } from 'zod';
import { api, apiCall } from '../../lib/api-client.js';
import { storedUserSchema } from '../../lib/storage.js';

/** The account calls of spec §7 used by the login, registration, reset and callback screens. */

/** POST /api/user/register as the form sends it: every field. */
export type RegistrationPayload = Readonly<Required<z.input<typeof registerRequestSchema>>>;

/**
 * What a sign-in's first step answers: the signed-in user, or (a user with a second factor) the
 * challenge that POST /api/user/login/2fa completes.
 */
export const signInAnswerSchema = z.union([signInChallengeSchema, storedUserSchema]);
export type SignInAnswer = z.infer<typeof signInAnswerSchema>;

export const isChallenge = (answer: SignInAnswer): answer is SignInChallenge => 'require_2fa' in answer;

export const login = (username: string, password: string) =>
  api.post(
    '/api/user/login',
    { username, password } satisfies z.input<typeof loginRequestSchema>,
    signInAnswerSchema,
  );

/** POST /api/user/login/2fa: the authenticator code or a recovery code that ends the sign-in. */
export const completeSecondFactor = (code: string) =>
  api.post(
    '/api/user/login/2fa',
    { code } satisfies z.input<typeof twoFactorCodeRequestSchema>,
    storedUserSchema,
  );

export const register = (payload: RegistrationPayload, turnstile: string) =>
  api.send('POST', '/api/user/register', payload, { turnstile });

export const sendVerificationCode = (email: string, turnstile: string) =>
  api.send('GET', '/api/verification', undefined, { email, turnstile });

export const requestPasswordReset = (email: string, turnstile: string) =>
  api.send('GET', '/api/reset_password', undefined, { email, turnstile });

/** POST /api/user/reset: data is the new password. */
export const confirmPasswordReset = (email: string, token: string) =>
  api.post(
    '/api/user/reset',
    { email, token } satisfies z.input<typeof passwordResetRequestSchema>,
    z.string(),
  );

export const wechatLogin = (code: string) => api.get('/api/oauth/wechat', signInAnswerSchema, { code });

export type OAuthProvider = 'github' | 'lark' | 'oidc';

/** The callback call: `{bound: true}` when the message is 'bind', else the sign-in's answer. */
export const finishOAuth = async (provider: OAuthProvider, query: Readonly<Record<string, string>>) => {
  // GitHub and Lark: code and state; OpenID Connect: the provider's whole answer (code, state, iss…).
  const sent = provider === 'oidc' ? query : { code: query['code'] ?? '', state: query['state'] ?? '' };
  const result = await apiCall('GET', `/api/oauth/${provider}`, {
    query: sent,
    schema: z.unknown(),
  });
  if (result.message === 'bind') return { bound: true as const };
  return { bound: false as const, answer: signInAnswerSchema.parse(result.data) };
};

/** Spec §4: a login with the default root credentials must change the password at once. */
export const isDefaultRootLogin = (username: string, password: string): boolean =>
  username === 'root' && password === '123456';

/** The router state that takes the login screen straight to the second factor (after a third-party sign-in). */
export const secondFactorState = (challenge: SignInChallenge) => ({ secondFactor: challenge });

/** The challenge a location's state carries, if any. */
export const secondFactorOf = (state: unknown): SignInChallenge | undefined => {
  const parsed = z.object({ secondFactor: signInChallengeSchema }).safeParse(state);
  return parsed.success ? parsed.data.secondFactor : undefined;
};

/** Whether the signed-in administrator must still set up a second factor (TwoFactorRequiredForAdmins). */
export const mustSetUpSecondFactor = async (): Promise<boolean> => {
  const status = await api.get('/api/user/2fa', twoFactorStatusSchema);
  return status.required && !status.totp;
};
