import { z } from 'zod';
import { businessError } from '../lib/app-error.js';
import { callProvider } from './provider-http.js';

export interface GitHubEndpoints {
  /** https://github.com: the OAuth server. */
  readonly oauthUrl: string;
  /** https://api.github.com: the REST API. */
  readonly apiUrl: string;
}

export interface GitHubApp {
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface GitHubUser {
  /** The account's login: one-api stores it as `github_id`. */
  readonly login: string;
  readonly name: string;
  readonly email: string;
}

/** POST /login/oauth/access_token with Accept: application/json; errors come back with HTTP 200. */
const tokenAnswer = z.object({
  access_token: z.string().optional(),
  token_type: z.string().optional(),
  scope: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/** GET /user: name and email are null when the account does not show them. */
const userAnswer = z.object({
  login: z.string().optional(),
  name: z.string().nullish(),
  email: z.string().nullish(),
  message: z.string().optional(),
});

const PROVIDER = 'GitHub';

/** Exchanges an authorization code for the GitHub user it was issued to. */
export const fetchGitHubUser = async (
  endpoints: GitHubEndpoints,
  app: GitHubApp,
  code: string,
): Promise<GitHubUser> => {
  if (code === '') throw businessError('invalid parameter: code is empty');
  const token = await callProvider(
    {
      provider: PROVIDER,
      url: `${endpoints.oauthUrl}/login/oauth/access_token`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: app.clientId, client_secret: app.clientSecret, code }),
    },
    tokenAnswer,
  );
  if (!token.access_token)
    throw businessError(
      `GitHub refused the code: ${token.error_description ?? token.error ?? 'no access token in the answer'}`,
    );
  const user = await callProvider(
    {
      provider: PROVIDER,
      url: `${endpoints.apiUrl}/user`,
      headers: {
        authorization: `Bearer ${token.access_token}`,
        accept: 'application/vnd.github+json',
        'user-agent': 'Sluice',
      },
    },
    userAnswer,
  );
  if (!user.login) throw businessError('GitHub answered a user with an empty login, please try again later');
  return { login: user.login, name: user.name ?? '', email: user.email ?? '' };
};
