import type { Passkey } from '@sluice/contract/schemas/passkey';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { sqlNumber } from '../db/sql-number.js';
import { isUniqueViolation } from '../db/unique-violation.js';
import { businessError } from '../lib/app-error.js';
import { nowSeconds } from '../lib/time.js';
import { serverAddressOf } from './account-mail-service.js';
import type { ServiceDeps } from './service-deps.js';

export const PASSKEY_REFUSED = 'the passkey could not be verified';
export const PASSKEY_UNKNOWN = 'this passkey is not registered here';
export const PASSKEY_MISSING = 'passkey does not exist';
export const PASSKEY_TAKEN = 'this passkey is already registered';

/** How long a browser has to answer a challenge (the WebAuthn ceremony's timeout too). */
export const PASSKEY_TIMEOUT_SECONDS = 300;

interface Account {
  readonly id: number;
  readonly username: string;
  readonly display_name: string | null;
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * @simplewebauthn/server and its certificate parsers hold about 15 MiB once loaded: loaded with the
 * first passkey call, not at boot (most servers never see one).
 */
const loadWebAuthn = () =>
  Promise.all([import('@simplewebauthn/server'), import('@simplewebauthn/server/helpers')]);
let loading: ReturnType<typeof loadWebAuthn> | undefined;
const webAuthn = () => (loading ??= loadWebAuthn());

/**
 * Passkeys (WebAuthn, @simplewebauthn/server): the relying party is the server address option (its
 * host the RP id, its origin the expected origin). Registration asks for a discoverable credential,
 * so a passkey signs in on its own; the caller keeps each challenge (single use, short-lived) and
 * hands it back for the verification. The signature counter is checked and kept.
 */
export const createPasskeyService = (deps: Pick<ServiceDeps, 'db' | 'options' | 'config'>) => {
  const { db, options } = deps;
  const party = () => {
    const address = new URL(serverAddressOf(deps));
    return { rpID: address.hostname, origin: address.origin };
  };
  const rowsOf = (userId: number) =>
    db.selectFrom('sluice_passkeys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  const transportsOf = (text: string): string[] => text.split(',').filter((item) => item !== '');

  return {
    list: async (userId: number): Promise<Passkey[]> =>
      (await rowsOf(userId)).map((row) => ({
        id: sqlNumber(row.id),
        name: row.name,
        created_at: sqlNumber(row.created_at),
        last_used_at: sqlNumber(row.last_used_at),
        backed_up: sqlNumber(row.backed_up) === 1,
      })),
    registrationOptions: async (account: Account): Promise<PublicKeyCredentialCreationOptionsJSON> =>
      (await webAuthn())[0].generateRegistrationOptions({
        rpName: options.values.SystemName || 'Sluice',
        rpID: party().rpID,
        userName: account.username,
        userDisplayName: account.display_name || account.username,
        userID: new TextEncoder().encode(`sluice-user-${account.id}`),
        timeout: PASSKEY_TIMEOUT_SECONDS * 1000,
        attestationType: 'none',
        excludeCredentials: (await rowsOf(account.id)).map((row) => ({
          id: row.credential_id,
          transports: transportsOf(row.transports),
        })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      }),
    /** Verifies a new credential against the challenge given for it, and keeps it under its name. */
    register: async (userId: number, name: string, response: RegistrationResponseJSON, challenge: string) => {
      const { rpID, origin } = party();
      const [{ verifyRegistrationResponse }, { isoBase64URL }] = await webAuthn();
      let verification;
      try {
        verification = await verifyRegistrationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: false,
        });
      } catch (error) {
        throw businessError(`${PASSKEY_REFUSED}: ${reasonOf(error)}`);
      }
      if (!verification.verified) throw businessError(PASSKEY_REFUSED);
      const { credential, credentialBackedUp } = verification.registrationInfo;
      const now = nowSeconds();
      try {
        await db
          .insertInto('sluice_passkeys')
          .values({
            user_id: userId,
            credential_id: credential.id,
            name,
            public_key: isoBase64URL.fromBuffer(credential.publicKey),
            counter: credential.counter,
            transports: (credential.transports ?? []).join(','),
            backed_up: credentialBackedUp ? 1 : 0,
            created_at: now,
            last_used_at: 0,
          })
          .execute();
      } catch (error) {
        if (isUniqueViolation(error)) throw businessError(PASSKEY_TAKEN);
        throw error;
      }
    },
    /** A sign-in's challenge: any discoverable passkey of this site, or only the passkeys of `userId`. */
    authenticationOptions: async (userId?: number): Promise<PublicKeyCredentialRequestOptionsJSON> =>
      (await webAuthn())[0].generateAuthenticationOptions({
        rpID: party().rpID,
        timeout: PASSKEY_TIMEOUT_SECONDS * 1000,
        userVerification: userId === undefined ? 'required' : 'preferred',
        allowCredentials:
          userId === undefined
            ? []
            : (await rowsOf(userId)).map((row) => ({
                id: row.credential_id,
                transports: transportsOf(row.transports),
              })),
      }),
    /**
     * Verifies an assertion against its challenge: the user whose passkey signed it. A passkey alone
     * must have verified the user (PIN, biometrics); as a second factor presence is enough.
     */
    authenticate: async (
      response: AuthenticationResponseJSON,
      challenge: string,
      alone: boolean,
    ): Promise<{ userId: number; name: string }> => {
      const row = await db
        .selectFrom('sluice_passkeys')
        .selectAll()
        .where('credential_id', '=', response.id)
        .executeTakeFirst();
      if (!row) throw businessError(PASSKEY_UNKNOWN);
      const { rpID, origin } = party();
      const [{ verifyAuthenticationResponse }, { isoBase64URL }] = await webAuthn();
      let verification;
      try {
        verification = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: alone,
          credential: {
            id: row.credential_id,
            publicKey: isoBase64URL.toBuffer(row.public_key),
            counter: sqlNumber(row.counter),
            transports: transportsOf(row.transports),
          },
        });
      } catch (error) {
        throw businessError(`${PASSKEY_REFUSED}: ${reasonOf(error)}`);
      }
      if (!verification.verified) throw businessError(PASSKEY_REFUSED);
      await db
        .updateTable('sluice_passkeys')
        .set({ counter: verification.authenticationInfo.newCounter, last_used_at: nowSeconds() })
        .where('id', '=', row.id)
        .execute();
      return { userId: sqlNumber(row.user_id), name: row.name };
    },
    /** The user a credential id belongs to (undefined for one not registered here). */
    ownerOf: async (credentialId: string): Promise<number | undefined> => {
      const row = await db
        .selectFrom('sluice_passkeys')
        .select('user_id')
        .where('credential_id', '=', credentialId)
        .executeTakeFirst();
      return row ? sqlNumber(row.user_id) : undefined;
    },
    rename: async (userId: number, id: number, name: string): Promise<void> => {
      const result = await db
        .updateTable('sluice_passkeys')
        .set({ name })
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (sqlNumber(result.numUpdatedRows) === 0) throw businessError(PASSKEY_MISSING);
    },
    remove: async (userId: number, id: number): Promise<string> => {
      const row = await db
        .selectFrom('sluice_passkeys')
        .select('name')
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (!row) throw businessError(PASSKEY_MISSING);
      await db.deleteFrom('sluice_passkeys').where('id', '=', id).where('user_id', '=', userId).execute();
      return row.name;
    },
  };
};

export type PasskeyService = ReturnType<typeof createPasskeyService>;
