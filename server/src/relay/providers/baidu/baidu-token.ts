import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ChannelMeta, IssuedToken, TokenSource, UpstreamErrorInfo } from '../adaptor.js';

/** The channel's key as Baidu's API Key and Secret Key (`APIKey|SecretKey`); undefined for a v2 key. */
export const baiduCredentials = (key: string): { apiKey: string; secretKey: string } | undefined => {
  const bar = key.indexOf('|');
  if (bar === -1) return undefined;
  return { apiKey: key.slice(0, bar).trim(), secretKey: key.slice(bar + 1).trim() };
};

const issued = z.looseObject({ access_token: z.string().min(1), expires_in: z.number().positive() });
const refused = z.looseObject({
  error: z.string().optional(),
  error_description: z.string().optional(),
  error_code: z.union([z.number(), z.string()]).optional(),
  error_msg: z.string().optional(),
});

/**
 * Baidu's OAuth client-credentials grant: `POST <base>/oauth/2.0/token?grant_type=client_credentials
 * &client_id=<API Key>&client_secret=<Secret Key>` answers `{access_token, expires_in}` (30 days);
 * a refused key answers `{error, error_description}`. Only `APIKey|SecretKey` keys need it: a
 * Qianfan v2 API key is sent as it is.
 */
export const baiduTokenSource: TokenSource = {
  applies: (channel) => baiduCredentials(channel.key) !== undefined,
  cacheKey: (channel: ChannelMeta) =>
    `baidu:${channel.baseUrl}:${createHash('sha256').update(channel.key).digest('hex').slice(0, 32)}`,
  request: (channel) => {
    const credentials = baiduCredentials(channel.key) ?? { apiKey: '', secretKey: '' };
    const query = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.apiKey,
      client_secret: credentials.secretKey,
    });
    return {
      url: `${channel.baseUrl}/oauth/2.0/token?${query.toString()}`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '',
    };
  },
  read: (status, body): IssuedToken | UpstreamErrorInfo => {
    const ok = issued.safeParse(body);
    if (status < 400 && ok.success)
      return { token: ok.data.access_token, expiresInSeconds: ok.data.expires_in };
    const error = refused.safeParse(body);
    const data = error.success ? error.data : {};
    return {
      message: data.error_description || data.error_msg || data.error || `token endpoint answered ${status}`,
      type: 'baidu_error',
      code: data.error ?? (data.error_code === undefined ? 'token_failed' : String(data.error_code)),
    };
  },
};
