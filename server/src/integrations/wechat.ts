import { z } from 'zod';
import { businessError } from '../lib/app-error.js';
import { callProvider } from './provider-http.js';

export interface WeChatServer {
  /** WeChatServerAddress: a wechat-server instance (one-api's companion project). */
  readonly address: string;
  /** WeChatServerToken, sent as the raw Authorization header. */
  readonly token: string;
}

const answer = z.object({
  success: z.boolean(),
  message: z.string().optional().default(''),
  data: z.string().nullish(),
});

/** The WeChat id behind a login code the user read from the official account. */
export const fetchWeChatId = async (server: WeChatServer, code: string): Promise<string> => {
  if (code === '') throw businessError('invalid parameter: code is empty');
  const result = await callProvider(
    {
      provider: 'WeChat',
      url: `${server.address.replace(/\/+$/, '')}/api/wechat/user?code=${encodeURIComponent(code)}`,
      headers: { authorization: server.token, accept: 'application/json' },
    },
    answer,
  );
  if (!result.success) throw businessError(result.message || 'the WeChat server refused the code');
  if (!result.data) throw businessError('the verification code is wrong or has expired');
  return result.data;
};
