import { z } from 'zod';
import { api, withQuery } from './api-client.js';

/** GET /api/oauth/state: a fresh state value bound to this browser's session. */
export const fetchOAuthState = (): Promise<string> => api.get('/api/oauth/state', z.string());

/** The code-hosting (GitHub) authorization page: client id, state and scope user:email. */
export const githubAuthorizeUrl = (clientId: string, state: string): string =>
  `https://github.com/login/oauth/authorize?client_id=${encodeURIComponent(clientId)}` +
  `&state=${encodeURIComponent(state)}&scope=user:email`;

/** The messaging-suite (Lark) authorization page: app id, state and a redirect to /oauth/lark. */
export const larkAuthorizeUrl = (appId: string, state: string, origin: string): string =>
  withQuery('https://open.feishu.cn/open-apis/authen/v1/index', {
    redirect_uri: `${origin}/oauth/lark`,
    app_id: appId,
    state,
  });

/** Fetches a state and opens the provider's page (errors go to the caller's handler). */
export const openGitHubLogin = async (clientId: string): Promise<void> => {
  const state = await fetchOAuthState();
  globalThis.open(githubAuthorizeUrl(clientId, state), '_self');
};

export const openLarkLogin = async (appId: string): Promise<void> => {
  const state = await fetchOAuthState();
  globalThis.open(larkAuthorizeUrl(appId, state, globalThis.location.origin), '_self');
};

/**
 * OpenID Connect: the server makes the authorization request (PKCE, state and nonce kept in the
 * session) and answers its address; the browser goes there. The callback is /oauth/oidc.
 */
export const openOidcLogin = async (): Promise<void> => {
  const url = await api.get('/api/oauth/oidc/authorize', z.string());
  globalThis.open(url, '_self');
};

/** DELETE /api/oauth/oidc/bind: the signed-in user's OpenID Connect account unbound. */
export const unbindOidc = () => api.send('DELETE', '/api/oauth/oidc/bind');
