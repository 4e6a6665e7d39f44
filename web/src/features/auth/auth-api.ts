import type { passwordResetRequestSchema } from '@sluice/contract/schemas/account';
import type { loginRequestSchema, registerRequestSchema } from '@sluice/contract/schemas/user';
import { z } from 'zod';
import { api, apiCall } from '../../lib/api-client.js';
import { storedUserSchema } from '../../lib/storage.js';

/** The account calls of spec §7 used by the login, registration, reset and callback screens. */

/** POST /api/user/register as the form sends it: every field. */
export type RegistrationPayload = Readonly<Required<z.input<typeof registerRequestSchema>>>;

export const login = (username: string, password: string) =>
  api.post(
    '/api/user/login',
    { username, password } satisfies z.input<typeof loginRequestSchema>,
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

export const wechatLogin = (code: string) => api.get('/api/oauth/wechat', storedUserSchema, { code });

export type OAuthProvider = 'github' | 'lark';

/** The callback call: `{bound: true}` when the message is 'bind', else the logged-in user. */
export const finishOAuth = async (provider: OAuthProvider, code: string, state: string) => {
  const result = await apiCall('GET', `/api/oauth/${provider}`, {
    query: { code, state },
    schema: z.unknown(),
  });
  if (result.message === 'bind') return { bound: true as const };
  return { bound: false as const, user: storedUserSchema.parse(result.data) };
};

/** Spec §4: a login with the default root credentials must change the password at once. */
export const isDefaultRootLogin = (username: string, password: string): boolean =>
  username === 'root' && password === '123456';
