import { userSchema } from '@sluice/contract/schemas/user';
import { z } from 'zod';
import { api } from '../../../lib/api-client.js';

/** The personal-settings calls of spec §7. */
export const getSelf = () => api.get('/api/user/self', userSchema);
/** GET /api/user/token: a new system access token. */
export const regenerateAccessToken = () => api.get('/api/user/token', z.string());
/** GET /api/user/aff: the invite code. */
export const getAffCode = () => api.get('/api/user/aff', z.string());
export const deleteSelf = () => api.send('DELETE', '/api/user/self');
export const logout = () => api.send('GET', '/api/user/logout');
export const bindWeChat = (code: string) => api.send('GET', '/api/oauth/wechat/bind', undefined, { code });
export const sendVerificationCode = (email: string, turnstile: string) =>
  api.send('GET', '/api/verification', undefined, { email, turnstile });
export const bindEmail = (email: string, code: string) =>
  api.send('GET', '/api/oauth/email/bind', undefined, { email, code });

/** The invite link: `<server address>/register?aff=<code>`. */
export const inviteLink = (serverAddress: string, code: string): string =>
  `${serverAddress.replace(/\/+$/, '')}/register?aff=${encodeURIComponent(code)}`;

/** Spec §5: the typed value must equal the own username. */
export const confirmsDeletion = (typed: string, username: string): boolean => typed === username;
