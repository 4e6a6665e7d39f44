import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A WebAuthn authenticator in software, for API tests (the console's tests use Chromium's virtual
 * authenticator): one P-256 credential, "none" attestation, a signature counter; its answers are
 * what @simplewebauthn/browser sends (base64url JSON), built by the specification's byte layout.
 */

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

const cborHead = (major: number, length: number): Buffer => {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 256) return Buffer.from([(major << 5) | 24, length]);
  if (length < 65_536) return Buffer.from([(major << 5) | 25, length >> 8, length & 255]);
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(length, 1);
  return head;
};

/** The CBOR (RFC 8949) of integers, texts, byte strings and maps: all WebAuthn needs here. */
const cbor = (value: Cbor): Buffer => {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  return Buffer.concat([
    cborHead(5, value.size),
    ...[...value].flatMap(([key, item]) => [cbor(key), cbor(item)]),
  ]);
};

const sha256 = (data: Buffer | string): Buffer => createHash('sha256').update(data).digest();
const b64url = (data: Buffer): string => data.toString('base64url');
const counterBytes = (counter: number): Buffer => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(counter);
  return bytes;
};

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_DATA = 0x40;

export interface CeremonyOptions {
  /** The origin the browser would report (the page's). */
  readonly origin?: string;
  /** Whether the user was verified (PIN, biometrics); presence alone otherwise. */
  readonly userVerified?: boolean;
}

/** An authenticator for the relying party `rpId`, answering as a page of `origin` would. */
export const createSoftwareAuthenticator = (rpId: string, origin: string) => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const coseKey = cbor(
    new Map<Cbor, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x ?? '', 'base64url')],
      [-3, Buffer.from(jwk.y ?? '', 'base64url')],
    ]),
  );
  const credentialId = randomBytes(32);
  const rpIdHash = sha256(rpId);
  let counter = 0;
  const clientData = (type: string, challenge: string, options: CeremonyOptions) =>
    Buffer.from(JSON.stringify({ type, challenge, origin: options.origin ?? origin, crossOrigin: false }));
  const flags = (base: number, options: CeremonyOptions) =>
    Buffer.from([base | FLAG_USER_PRESENT | (options.userVerified === false ? 0 : FLAG_USER_VERIFIED)]);

  return {
    credentialId: b64url(credentialId),
    /** navigator.credentials.create() for the given options (their challenge). */
    register: (options: { readonly challenge: string }, ceremony: CeremonyOptions = {}) => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        rpIdHash,
        flags(FLAG_ATTESTED_DATA, ceremony),
        counterBytes(counter),
        Buffer.alloc(16),
        length,
        credentialId,
        coseKey,
      ]);
      const attestation = cbor(
        new Map<Cbor, Cbor>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]),
      );
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(clientData('webauthn.create', options.challenge, ceremony)),
          attestationObject: b64url(attestation),
          transports: ['internal'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
    /** navigator.credentials.get() for the given options (their challenge); the counter moves on. */
    authenticate: (options: { readonly challenge: string }, ceremony: CeremonyOptions = {}) => {
      counter += 1;
      const authData = Buffer.concat([rpIdHash, flags(0, ceremony), counterBytes(counter)]);
      const data = clientData('webauthn.get', options.challenge, ceremony);
      const signature = sign('sha256', Buffer.concat([authData, sha256(data)]), privateKey);
      return {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(data),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      };
    },
  };
};

export type SoftwareAuthenticator = ReturnType<typeof createSoftwareAuthenticator>;
