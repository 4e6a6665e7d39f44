import { z } from 'zod';
import { emailSchema } from './user.js';

/** POST /api/user/reset: the email and token of the reset link. */
export const passwordResetRequestSchema = z.object({
  email: emailSchema,
  token: z.string().trim().min(1, 'token is required').max(64, 'token is too long'),
});
export type PasswordResetRequest = z.infer<typeof passwordResetRequestSchema>;

/** GET /api/verification and GET /api/reset_password. */
export const emailQuerySchema = z.object({ email: emailSchema });

/** GET /api/oauth/email/bind. */
export const emailBindQuerySchema = z.object({
  email: emailSchema,
  code: z.string().trim().max(64, 'code is too long').optional().default(''),
});

/** The third-party callbacks: GET /api/oauth/{github,lark}?code=&state= and /api/oauth/wechat?code=. */
export const oauthCallbackQuerySchema = z.object({
  code: z.string().trim().max(512, 'code is too long').optional().default(''),
  state: z.string().trim().max(64, 'state is too long').optional().default(''),
});
