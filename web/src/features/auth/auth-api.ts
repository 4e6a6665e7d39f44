import { z } from 'zod';
import { api, apiCall } from '../../lib/api-client.js';
import { storedUserSchema } from '../../lib/storage.js';

/** The account calls of spec §7 used by the login, registration, reset and callback screens. */

export interface RegistrationPayload {
  readonly username: string;
  readonly password: string;
  readonly password2: string;
  readonly email: string;
  readonly verification_code: string;
  readonly aff_code: string;
}

export const login = (username: string, password: string) =>
  api.post('/api/user/login', { username, password }, storedUserSchema);

export const register = (payload: RegistrationPayload, turnstile: string) =>
  api.send('POST', '/api/user/register', payload, { turnstile });

export const sendVerificationCode = (email: string, turnstile: string) =>
  api.send('GET', '/api/verification', undefined, { email, turnstile });

export const requestPasswordReset = (email: string, turnstile: string) =>
  api.send('GET', '/api/reset_password', undefined, { email, turnstile });

/** POST /api/user/reset: data is the new password. */
export const confirmPasswordReset = (email: string, token: string) =>
  api.post('/api/user/reset', { email, token }, z.string());

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
