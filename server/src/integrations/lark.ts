import { z } from 'zod';
import { businessError } from '../lib/app-error.js';
import { callProvider } from './provider-http.js';

export interface LarkEndpoints {
  /** https://open.feishu.cn: the token endpoint (authen v2). */
  readonly openUrl: string;
  /** https://passport.feishu.cn: the user-info endpoint. */
  readonly passportUrl: string;
}

export interface LarkApp {
  readonly clientId: string;
  readonly clientSecret: string;
  /** `<ServerAddress>/oauth/lark`, the address the authorization page sent the code to. */
  readonly redirectUri: string;
}

export interface LarkUser {
  /** The user's open_id for this app: one-api stores it as `lark_id`. */
  readonly openId: string;
  readonly name: string;
}

/** authen v2 token: `code` 0 and the token on success; `error`/`error_description` otherwise. */
const tokenAnswer = z.object({
  code: z.number().optional(),
  access_token: z.string().optional(),
  token_type: z.string().optional(),
  expires_in: z.number().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

const userAnswer = z.object({
  open_id: z.string().optional(),
  name: z.string().nullish(),
});

const PROVIDER = 'Lark';

/** Exchanges an authorization code for the Lark user it was issued to. */
export const fetchLarkUser = async (
  endpoints: LarkEndpoints,
  app: LarkApp,
  code: string,
): Promise<LarkUser> => {
  if (code === '') throw businessError('invalid parameter: code is empty');
  const token = await callProvider(
    {
      provider: PROVIDER,
      url: `${endpoints.openUrl}/open-apis/authen/v2/oauth/token`,
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
      body: JSON.stringify({
        grant_type: 'authorization_code',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        code,
        redirect_uri: app.redirectUri,
      }),
    },
    tokenAnswer,
  );
  if (!token.access_token || (token.code !== undefined && token.code !== 0))
    throw businessError(
      `Lark refused the code: ${token.error_description ?? token.error ?? `code ${token.code ?? 'missing'}`}`,
    );
  const user = await callProvider(
    {
      provider: PROVIDER,
      url: `${endpoints.passportUrl}/suite/passport/oauth/userinfo`,
      headers: { authorization: `Bearer ${token.access_token}`, accept: 'application/json' },
    },
    userAnswer,
  );
  if (!user.open_id) throw businessError('Lark answered a user without an open_id, please try again later');
  return { openId: user.open_id, name: user.name ?? '' };
};
