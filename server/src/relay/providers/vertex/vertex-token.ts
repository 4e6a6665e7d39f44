import type { importPKCS8 } from 'jose';
import { z } from 'zod';
import { relayError } from '../../../lib/app-error.js';
import type { ChannelMeta, IssuedToken, TokenSource, UpstreamErrorInfo } from '../adaptor.js';
import { vertexChannelOf, type ServiceAccount } from './vertex-config.js';

type SigningKey = Awaited<ReturnType<typeof importPKCS8>>;

/** The OAuth scope of Vertex AI's calls. */
export const VERTEX_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** The grant type of a service account's signed assertion (RFC 7523). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** How long an assertion is valid for: Google accepts at most an hour. */
const ASSERTION_SECONDS = 3600;

/** jose, loaded with the first Vertex AI token rather than at boot (most servers have no such channel). */
const loadJose = () => import('jose');
let loadingJose: ReturnType<typeof loadJose> | undefined;
const jose = () => (loadingJose ??= loadJose());

/** The imported private key of each service account (importing it parses the PEM). */
const keys = new Map<string, Promise<SigningKey>>();

const privateKeyOf = (account: ServiceAccount): Promise<SigningKey> => {
  let key = keys.get(account.privateKey);
  if (!key) {
    // Never jose's message: a key that does not parse is named, not quoted.
    key = jose()
      .then(({ importPKCS8 }) => importPKCS8(account.privateKey, 'RS256'))
      .catch(() => {
        keys.delete(account.privateKey);
        throw relayError(
          401,
          'invalid_channel_credentials',
          "the Vertex AI channel's config.vertex_ai_adc: private_key is not an RSA PKCS#8 key",
          'upstream_error',
        );
      });
    if (keys.size >= 1000) keys.clear();
    keys.set(account.privateKey, key);
  }
  return key;
};

/**
 * The service account's signed assertion (Google's "Using OAuth 2.0 for server to server
 * applications"): RS256 with the JSON's private key (`kid` its private_key_id), `iss` the client
 * email, `scope` cloud-platform, `aud` the JSON's token_uri, valid for an hour from now.
 */
export const signGrant = async (account: ServiceAccount, nowSeconds: number): Promise<string> =>
  new (await jose()).SignJWT({ scope: VERTEX_SCOPE })
    .setProtectedHeader({
      alg: 'RS256',
      typ: 'JWT',
      ...(account.privateKeyId ? { kid: account.privateKeyId } : {}),
    })
    .setIssuer(account.clientEmail)
    .setAudience(account.tokenUri)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + ASSERTION_SECONDS)
    .sign(await privateKeyOf(account));

const issued = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.number().positive().optional(),
});
const refused = z.looseObject({
  error: z.union([z.string(), z.looseObject({ message: z.string().optional() })]).optional(),
  error_description: z.string().optional(),
});

/**
 * A Vertex AI channel's access token: its service account's JWT grant posted (form-encoded) to the
 * JSON's `token_uri`, answered `{access_token, expires_in, token_type: "Bearer"}`; a refused grant
 * is `{error, error_description}`. Cached by the relay per channel and service account.
 */
export const vertexTokenSource: TokenSource = {
  // Read once per channel meta (vertex-config.ts): a warm call costs a map lookup, no parsing.
  cacheKey: (channel: ChannelMeta) => vertexChannelOf(channel).cacheKey,
  request: async (channel) => {
    const { account } = vertexChannelOf(channel);
    const assertion = await signGrant(account, Math.floor(Date.now() / 1000));
    return {
      url: account.tokenUri,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
    };
  },
  read: (status, body): IssuedToken | UpstreamErrorInfo => {
    const ok = issued.safeParse(body);
    if (status >= 200 && status < 300 && ok.success)
      return { token: ok.data.access_token, expiresInSeconds: ok.data.expires_in ?? 3600 };
    const error = refused.safeParse(body);
    const data = error.success ? error.data : {};
    const code = typeof data.error === 'string' ? data.error : '';
    const message =
      data.error_description ||
      (typeof data.error === 'object' ? data.error.message : undefined) ||
      code ||
      `the token endpoint answered ${status}`;
    return { message, type: 'upstream_error', code: code || 'token_failed' };
  },
};
