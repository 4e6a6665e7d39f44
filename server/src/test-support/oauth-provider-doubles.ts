import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { listenHandler, type Listening } from './listen.js';

/** A request a double received. */
export interface ProviderRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
};

const record = (request: IncomingMessage, body: Buffer): ProviderRequest => ({
  method: request.method ?? '',
  path: request.url ?? '',
  headers: request.headers,
  body: body.toString('utf8'),
});

const parseJson = (body: Buffer): Record<string, unknown> => {
  try {
    return JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
};

const bearer = (request: IncomingMessage): string =>
  (request.headers.authorization ?? '').replace(/^Bearer /, '');

export interface GitHubProfile {
  readonly login: string;
  readonly name: string | null;
  readonly email: string | null;
}

export interface GitHubDouble extends Listening {
  readonly requests: ProviderRequest[];
  readonly clientId: string;
  readonly clientSecret: string;
  /** Issues a single-use authorization code for this profile, as GitHub's redirect would. */
  authorize(profile: GitHubProfile): string;
}

/**
 * GitHub's OAuth web flow as documented: POST /login/oauth/access_token (JSON or form body; answers
 * JSON when asked with Accept: application/json, errors too with HTTP 200) and GET /user with the
 * bearer token (401 "Bad credentials" otherwise).
 */
export const startGitHubDouble = async (): Promise<GitHubDouble> => {
  const requests: ProviderRequest[] = [];
  const clientId = 'Iv1.double0client';
  const clientSecret = 'github-double-client-secret';
  const codes = new Map<string, GitHubProfile>();
  const tokens = new Map<string, GitHubProfile>();
  let nextId = 1000;
  const server = await listenHandler((request, body, response) => {
    requests.push(record(request, body));
    const url = new URL(request.url ?? '/', 'http://double');
    if (request.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const fields = (request.headers['content-type'] ?? '').includes('json')
        ? parseJson(body)
        : Object.fromEntries(new URLSearchParams(body.toString('utf8')));
      if (fields['client_id'] !== clientId || fields['client_secret'] !== clientSecret)
        return json(response, 200, {
          error: 'incorrect_client_credentials',
          error_description: 'The client_id and/or client_secret passed are incorrect.',
          error_uri:
            'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#incorrect-client-credentials',
        });
      const profile = codes.get(String(fields['code']));
      codes.delete(String(fields['code']));
      if (!profile)
        return json(response, 200, {
          error: 'bad_verification_code',
          error_description: 'The code passed is incorrect or expired.',
          error_uri:
            'https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code',
        });
      const token = `gho_${randomBytes(18).toString('hex')}`;
      tokens.set(token, profile);
      return json(response, 200, { access_token: token, token_type: 'bearer', scope: 'user:email' });
    }
    if (request.method === 'GET' && url.pathname === '/user') {
      const profile = tokens.get(bearer(request));
      if (!profile)
        return json(response, 401, {
          message: 'Bad credentials',
          documentation_url: 'https://docs.github.com/rest',
          status: '401',
        });
      nextId += 1;
      return json(response, 200, {
        login: profile.login,
        id: nextId,
        node_id: 'MDQ6VXNlcjE=',
        type: 'User',
        site_admin: false,
        name: profile.name,
        company: null,
        blog: '',
        location: null,
        email: profile.email,
        bio: null,
        public_repos: 2,
        followers: 20,
        following: 0,
        created_at: '2008-01-14T04:33:35Z',
        updated_at: '2008-01-14T04:33:35Z',
      });
    }
    json(response, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  });
  return {
    ...server,
    requests,
    clientId,
    clientSecret,
    authorize: (profile) => {
      const code = randomBytes(10).toString('hex');
      codes.set(code, profile);
      return code;
    },
  };
};

export interface LarkProfile {
  readonly openId: string;
  readonly name: string;
}

export interface LarkDouble extends Listening {
  readonly requests: ProviderRequest[];
  readonly clientId: string;
  readonly clientSecret: string;
  authorize(profile: LarkProfile): string;
}

/**
 * Lark (Feishu): POST /open-apis/authen/v2/oauth/token (RFC 6749 fields plus `code` 0 on success; an
 * `error` and a non-zero `code` with a 4xx otherwise) and GET /suite/passport/oauth/userinfo.
 */
export const startLarkDouble = async (): Promise<LarkDouble> => {
  const requests: ProviderRequest[] = [];
  const clientId = 'cli_double0lark';
  const clientSecret = 'lark-double-client-secret';
  const codes = new Map<string, LarkProfile>();
  const tokens = new Map<string, LarkProfile>();
  const server = await listenHandler((request, body, response) => {
    requests.push(record(request, body));
    const url = new URL(request.url ?? '/', 'http://double');
    if (request.method === 'POST' && url.pathname === '/open-apis/authen/v2/oauth/token') {
      const fields = parseJson(body);
      if (fields['client_id'] !== clientId || fields['client_secret'] !== clientSecret)
        return json(response, 401, {
          code: 20002,
          error: 'invalid_client',
          error_description: 'Client authentication failed',
        });
      const profile = codes.get(String(fields['code']));
      codes.delete(String(fields['code']));
      if (fields['grant_type'] !== 'authorization_code' || !profile)
        return json(response, 400, {
          code: 20003,
          error: 'invalid_grant',
          error_description: 'The authorization code is invalid or has expired',
        });
      const token = `u-${randomBytes(16).toString('hex')}`;
      tokens.set(token, profile);
      return json(response, 200, {
        code: 0,
        access_token: token,
        expires_in: 7200,
        refresh_token: `ur-${randomBytes(16).toString('hex')}`,
        refresh_token_expires_in: 604800,
        token_type: 'Bearer',
        scope: '',
      });
    }
    if (request.method === 'GET' && url.pathname === '/suite/passport/oauth/userinfo') {
      const profile = tokens.get(bearer(request));
      if (!profile) return json(response, 401, { code: 20005, msg: 'invalid access token' });
      return json(response, 200, {
        sub: profile.openId,
        name: profile.name,
        picture: 'https://example.invalid/avatar.png',
        open_id: profile.openId,
        union_id: `on_${profile.openId}`,
        en_name: profile.name,
        tenant_key: '736588c92lxf175d',
        avatar_url: 'https://example.invalid/avatar.png',
      });
    }
    json(response, 404, { code: 404, msg: 'not found' });
  });
  return {
    ...server,
    requests,
    clientId,
    clientSecret,
    authorize: (profile) => {
      const code = randomBytes(10).toString('hex');
      codes.set(code, profile);
      return code;
    },
  };
};

export interface WeChatServerDouble extends Listening {
  readonly requests: ProviderRequest[];
  readonly token: string;
  /** A login code the official account would show for this WeChat id. */
  issueCode(wechatId: string): string;
}

/** one-api's companion wechat-server: GET /api/wechat/user?code= with Authorization: <token>. */
export const startWeChatServerDouble = async (): Promise<WeChatServerDouble> => {
  const requests: ProviderRequest[] = [];
  const token = 'wechat-server-double-token';
  const codes = new Map<string, string>();
  const server = await listenHandler((request, body, response) => {
    requests.push(record(request, body));
    const url = new URL(request.url ?? '/', 'http://double');
    if (request.method !== 'GET' || url.pathname !== '/api/wechat/user')
      return json(response, 404, { success: false, message: 'not found' });
    if (request.headers.authorization !== token)
      return json(response, 200, { success: false, message: 'no permission: the token is invalid' });
    const code = url.searchParams.get('code') ?? '';
    if (code === '') return json(response, 200, { success: false, message: 'invalid parameter' });
    const id = codes.get(code) ?? '';
    codes.delete(code);
    json(response, 200, { success: true, message: '', data: id });
  });
  return {
    ...server,
    requests,
    token,
    issueCode: (wechatId) => {
      const code = String(100000 + codes.size + Math.floor(Math.random() * 800000));
      codes.set(code, wechatId);
      return code;
    },
  };
};
