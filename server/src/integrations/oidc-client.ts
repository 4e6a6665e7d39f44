import type { Configuration } from 'openid-client';
import { businessError } from '../lib/app-error.js';

/** Where an OpenID provider is and which client Sluice is there. */
export interface OidcSettings {
  /** The issuer, or the address of its discovery document (…/.well-known/openid-configuration). */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/** What a sign-in started and must find again at the callback: the checks of the authorization request. */
export interface OidcChecks {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

export type OidcClaims = Readonly<Record<string, unknown>>;

/** How long a discovered configuration is used before it is read again. */
const DISCOVERY_TTL_MS = 10 * 60_000;
const TIMEOUT_SECONDS = 10;
const WELL_KNOWN = '/.well-known/openid-configuration';

/** Plain HTTP only for a provider on this machine (a test's, a development one): anything else needs TLS. */
const isLoopback = (url: URL): boolean =>
  url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';

const issuerUrlOf = (issuer: string): URL => {
  try {
    const url = new URL(issuer.trim());
    // The issuer itself: openid-client adds the well-known path (and checks the document's issuer).
    if (url.pathname.endsWith(WELL_KNOWN)) url.pathname = url.pathname.slice(0, -WELL_KNOWN.length) || '/';
    return url;
  } catch {
    throw businessError('the OpenID Connect issuer is not a valid URL');
  }
};

/** openid-client (and jose under it) loaded with the first OpenID Connect sign-in, not at boot. */
const loadOpenIdClient = () => import('openid-client');
let loading: ReturnType<typeof loadOpenIdClient> | undefined;
const openIdClient = () => (loading ??= loadOpenIdClient());

/** The most precise message of an error: openid-client wraps oauth4webapi's (which names the claim) as its cause. */
const reasonOf = (error: unknown): string => {
  let precise = error;
  while (precise instanceof Error && precise.cause instanceof Error) precise = precise.cause;
  return precise instanceof Error ? precise.message : String(precise);
};

/**
 * OpenID Connect with openid-client: discovery (cached per provider and client), the authorization
 * code flow's request with PKCE (S256), state and nonce, and its callback, whose state, nonce, ID
 * token and PKCE verifier openid-client checks; the claims are the ID token's with the userinfo's.
 */
export const createOidcClient = () => {
  const configurations = new Map<string, { at: number; config: Promise<Configuration> }>();

  const configOf = (settings: OidcSettings): Promise<Configuration> => {
    const key = JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret]);
    const cached = configurations.get(key);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const url = issuerUrlOf(settings.issuer);
    const config = openIdClient()
      .then((oidc) =>
        oidc.discovery(url, settings.clientId, settings.clientSecret, undefined, {
          timeout: TIMEOUT_SECONDS,
          ...(isLoopback(url) ? { execute: [oidc.allowInsecureRequests] } : {}),
        }),
      )
      .catch((error: unknown) => {
        configurations.delete(key);
        throw businessError(`the OpenID provider cannot be reached: ${reasonOf(error)}`);
      });
    configurations.set(key, { at: Date.now(), config });
    return config;
  };

  return {
    /** The provider's authorization address for a new sign-in, and the checks to keep for its callback. */
    authorizationUrl: async (
      settings: OidcSettings,
      request: { readonly redirectUri: string; readonly scope: string },
    ): Promise<{ url: string; checks: OidcChecks }> => {
      const config = await configOf(settings);
      const oidc = await openIdClient();
      const checks = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        verifier: oidc.randomPKCECodeVerifier(),
      };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: request.redirectUri,
        scope: request.scope,
        response_type: 'code',
        state: checks.state,
        nonce: checks.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(checks.verifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, checks };
    },
    /**
     * The callback (the address the provider sent the browser to): the code exchanged with the
     * verifier, the ID token checked (signature, issuer, audience, nonce), the userinfo read.
     */
    claims: async (settings: OidcSettings, callbackUrl: URL, checks: OidcChecks): Promise<OidcClaims> => {
      const config = await configOf(settings);
      const oidc = await openIdClient();
      try {
        const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.verifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
        const idToken = tokens.claims();
        if (!idToken) throw new Error('the provider sent no ID token');
        const userinfo = config.serverMetadata().userinfo_endpoint
          ? await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)
          : {};
        return { ...userinfo, ...idToken };
      } catch (error) {
        throw businessError(`the OpenID Connect sign-in failed: ${reasonOf(error)}`);
      }
    },
  };
};

export type OidcClient = ReturnType<typeof createOidcClient>;
