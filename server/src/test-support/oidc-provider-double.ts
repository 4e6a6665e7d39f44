import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Listening } from './listen.js';

/** A person at the provider: the claims it releases for them (scopes openid, email, profile). */
export interface OidcPerson {
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly preferred_username?: string;
  readonly name?: string;
  readonly groups?: readonly string[];
}

export interface OidcProviderDouble extends Listening {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The people who may sign in, by subject (changed freely by a test). */
  readonly people: Map<string, OidcPerson>;
  /**
   * Walks an authorization request through the provider's own sign-in and consent pages as a
   * browser would (cookies, redirects, its forms) for the person `subject`; answers the address the
   * provider sends the browser back to (the client's redirect URI with code, state and iss).
   */
  signIn(authorizationUrl: string, subject: string): Promise<string>;
}

const CLIENT_ID = 'sluice-test-client';
const CLIENT_SECRET = 'oidc-double-client-secret-0123456789';

/**
 * A real OpenID provider (node-oidc-provider) on a loopback port: discovery, authorization code
 * flow with PKCE required, signed ID tokens, userinfo; its development sign-in pages take any
 * password. The client may redirect to `redirectUris`.
 */
export const startOidcProviderDouble = async (
  redirectUris: readonly string[],
): Promise<OidcProviderDouble> => {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const people = new Map<string, OidcPerson>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [...redirectUris],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['preferred_username', 'name', 'groups'],
    },
    findAccount: (_ctx, id) => {
      const person = people.get(id);
      return person ? { accountId: id, claims: () => ({ sub: id, ...person }) } : undefined;
    },
    cookies: { keys: ['oidc-double-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
  });
  const handle = provider.callback();
  server.on('request', (request, response) => {
    void handle(request, response);
  });

  const signIn = async (authorizationUrl: string, subject: string): Promise<string> => {
    const jar = new Map<string, string>();
    const send = async (url: string, form?: Record<string, string>) => {
      const response = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const at = pair.indexOf('=');
        jar.set(pair.slice(0, at).trim(), pair.slice(at + 1));
      }
      return response;
    };
    let response = await send(authorizationUrl);
    for (let step = 0; step < 12; step += 1) {
      const location = response.headers.get('location');
      if (location) {
        const next = new URL(location, response.url || issuer).href;
        if (!next.startsWith(issuer)) return next;
        response = await send(next);
        continue;
      }
      const page = await response.text();
      const prompt = /name="prompt" value="(\w+)"/.exec(page)?.[1];
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
      if (!prompt || !action)
        throw new Error(`the provider answered ${response.status}: ${page.slice(0, 300)}`);
      const form: Record<string, string> =
        prompt === 'login' ? { prompt, login: subject, password: 'any' } : { prompt };
      response = await send(new URL(action, issuer).href, form);
    }
    throw new Error('the provider did not send the browser back');
  };

  return {
    url: issuer,
    issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    people,
    signIn,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};
