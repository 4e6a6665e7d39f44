import { z } from 'zod';

/** A passkey's name: given by its owner, at most 64 characters. */
export const passkeyNameSchema = z
  .string()
  .trim()
  .min(1, 'name the passkey')
  .max(64, 'a passkey name is at most 64 characters');

/** A passkey as its owner sees it (never its public key). */
export const passkeySchema = z.object({
  id: z.number(),
  name: z.string(),
  created_at: z.number(),
  last_used_at: z.number(),
  /** Synced by its provider (iCloud Keychain, Google Password Manager…), so it survives a lost device. */
  backed_up: z.boolean(),
});
export type Passkey = z.infer<typeof passkeySchema>;

const base64url = z
  .string()
  .max(65_536)
  .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

/** A WebAuthn credential's answer as the browser library serialises it (RegistrationResponseJSON). */
export const registrationResponseSchema = z.looseObject({
  id: base64url,
  rawId: base64url,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: base64url,
    attestationObject: base64url,
    transports: z.array(z.string().max(32)).max(16).optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});

/** A WebAuthn assertion as the browser library serialises it (AuthenticationResponseJSON). */
export const authenticationResponseSchema = z.looseObject({
  id: base64url,
  rawId: base64url,
  type: z.literal('public-key'),
  response: z.looseObject({
    clientDataJSON: base64url,
    authenticatorData: base64url,
    signature: base64url,
    userHandle: base64url.optional(),
  }),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().max(32).optional(),
});

/** POST /api/user/passkey/register: the new credential and its name. */
export const passkeyRegisterRequestSchema = z.object({
  name: passkeyNameSchema,
  response: registrationResponseSchema,
});

/** PUT /api/user/passkey/:id. */
export const passkeyRenameRequestSchema = z.object({ name: passkeyNameSchema });

/** POST /api/user/passkey/login. */
export const passkeyLoginRequestSchema = z.object({ response: authenticationResponseSchema });

/**
 * The options of a WebAuthn ceremony as the server sends them (what @simplewebauthn/browser takes):
 * checked for their challenge; the browser checks the rest.
 */
export const passkeyOptionsSchema = z.looseObject({ challenge: base64url.min(16) });
