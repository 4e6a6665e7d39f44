import { z } from 'zod';

/** How many recovery codes a user gets when TOTP is turned on (and when they are made again). */
export const RECOVERY_CODE_COUNT = 10;
/** Wrong second-factor codes in a row that lock a user's two-factor sign-in. */
export const TWO_FACTOR_MAX_FAILURES = 5;
/** How long such a lock lasts. */
export const TWO_FACTOR_LOCK_SECONDS = 15 * 60;

/** A code typed by the user: six digits from the authenticator app, or a recovery code. */
export const twoFactorCodeRequestSchema = z.object({
  code: z
    .string()
    .trim()
    .min(6, 'enter the 6-digit code or a recovery code')
    .max(32, 'enter the 6-digit code or a recovery code'),
});
export type TwoFactorCodeRequest = z.infer<typeof twoFactorCodeRequestSchema>;

/** GET /api/user/2fa: the caller's second factors, and whether their role must have one. */
export const twoFactorStatusSchema = z.object({
  totp: z.boolean(),
  recovery_codes: z.number(),
  /** How many passkeys the caller has (each is a second factor, and a sign-in on its own). */
  passkeys: z.number(),
  /** TwoFactorRequiredForAdmins is on and the caller is an administrator. */
  required: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatusSchema>;

/** POST /api/user/2fa/totp/setup: the new secret, its otpauth:// address and that address as a QR code (SVG). */
export const totpSetupSchema = z.object({ secret: z.string(), uri: z.string(), qr_svg: z.string() });
export type TotpSetup = z.infer<typeof totpSetupSchema>;

/** The recovery codes, shown once (TOTP turned on, or the codes made again). */
export const recoveryCodesSchema = z.object({ recovery_codes: z.array(z.string()) });

/**
 * The answer of a sign-in whose first step passed when the user has a second factor: the session
 * is not signed in until POST /api/user/login/2fa (or a passkey) completes it.
 */
export const signInChallengeSchema = z.object({
  require_2fa: z.literal(true),
  totp: z.boolean(),
  passkey: z.boolean(),
});
export type SignInChallenge = z.infer<typeof signInChallengeSchema>;
