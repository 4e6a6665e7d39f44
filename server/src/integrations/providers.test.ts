import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listenHandler, type Listening } from '../test-support/listen.js';
import {
  startMessagePusherDouble,
  startTurnstileDouble,
  type MessagePusherDouble,
  type TurnstileDouble,
} from '../test-support/check-and-push-doubles.js';
import {
  startGitHubDouble,
  startLarkDouble,
  startWeChatServerDouble,
  type GitHubDouble,
  type LarkDouble,
  type WeChatServerDouble,
} from '../test-support/oauth-provider-doubles.js';
import { fetchGitHubUser } from './github.js';
import { fetchLarkUser } from './lark.js';
import { pushMessage } from './message-pusher.js';
import { callProvider } from './provider-http.js';
import { verifyTurnstile } from './turnstile.js';
import { fetchWeChatId } from './wechat.js';

/** The message of the error `work` throws. */
const messageOf = async (work: Promise<unknown>): Promise<string> => {
  try {
    await work;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('expected a failure');
};

describe('provider integrations against loopback doubles', () => {
  let github: GitHubDouble;
  let lark: LarkDouble;
  let wechat: WeChatServerDouble;
  let turnstile: TurnstileDouble;
  let pusher: MessagePusherDouble;
  let odd: Listening;
  beforeAll(async () => {
    [github, lark, wechat, turnstile, pusher] = await Promise.all([
      startGitHubDouble(),
      startLarkDouble(),
      startWeChatServerDouble(),
      startTurnstileDouble(),
      startMessagePusherDouble(),
    ]);
    odd = await listenHandler((request, _body, response) => {
      if (request.url === '/hang') return; // never answers
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>oops</html>');
    });
  });
  afterAll(async () => {
    for (const double of [github, lark, wechat, turnstile, pusher, odd]) await double?.close();
  });

  const gh = () => ({ oauthUrl: github.url, apiUrl: github.url });
  const ghApp = () => ({ clientId: github.clientId, clientSecret: github.clientSecret });

  describe('GitHub', () => {
    it('exchanges the code with Accept: application/json, then reads /user with the bearer token', async () => {
      const code = github.authorize({ login: 'octocat', name: 'The Octocat', email: 'octo@example.com' });
      expect(await fetchGitHubUser(gh(), ghApp(), code)).toEqual({
        login: 'octocat',
        name: 'The Octocat',
        email: 'octo@example.com',
      });
      const [exchange, user] = github.requests.slice(-2);
      expect(exchange?.method).toBe('POST');
      expect(exchange?.path).toBe('/login/oauth/access_token');
      expect(exchange?.headers.accept).toBe('application/json');
      expect(JSON.parse(exchange?.body ?? '')).toEqual({
        client_id: github.clientId,
        client_secret: github.clientSecret,
        code,
      });
      expect(user?.path).toBe('/user');
      expect(user?.headers.authorization).toMatch(/^Bearer gho_/);
      expect(user?.headers['user-agent']).toBe('Sluice');
    });

    it('accepts a hidden name and email (null)', async () => {
      const code = github.authorize({ login: 'shy', name: null, email: null });
      expect(await fetchGitHubUser(gh(), ghApp(), code)).toEqual({ login: 'shy', name: '', email: '' });
    });

    it('reports a used or wrong code with GitHub’s description', async () => {
      const code = github.authorize({ login: 'once', name: null, email: null });
      await fetchGitHubUser(gh(), ghApp(), code);
      expect(await messageOf(fetchGitHubUser(gh(), ghApp(), code))).toBe(
        'GitHub refused the code: The code passed is incorrect or expired.',
      );
    });

    it('never puts the client secret in an error', async () => {
      const code = github.authorize({ login: 'x', name: null, email: null });
      const message = await messageOf(
        fetchGitHubUser(gh(), { clientId: github.clientId, clientSecret: 'sup3r-s3cret-value' }, code),
      );
      expect(message).toMatch(/^GitHub refused the code/);
      expect(message).not.toContain('sup3r-s3cret-value');
    });

    it('says the server cannot be reached, without its address', async () => {
      const message = await messageOf(
        fetchGitHubUser({ oauthUrl: 'http://127.0.0.1:1', apiUrl: 'http://127.0.0.1:1' }, ghApp(), 'abc'),
      );
      expect(message).toBe('cannot reach the GitHub server, please try again later');
    });
  });

  describe('Lark', () => {
    const endpoints = () => ({ openUrl: lark.url, passportUrl: lark.url });
    const app = () => ({
      clientId: lark.clientId,
      clientSecret: lark.clientSecret,
      redirectUri: 'https://gateway.example.com/oauth/lark',
    });

    it('exchanges the code at authen v2 with the redirect URI, then reads the passport user info', async () => {
      const code = lark.authorize({ openId: 'ou_abc123', name: 'Li Lei' });
      expect(await fetchLarkUser(endpoints(), app(), code)).toEqual({ openId: 'ou_abc123', name: 'Li Lei' });
      const [exchange, info] = lark.requests.slice(-2);
      expect(exchange?.path).toBe('/open-apis/authen/v2/oauth/token');
      expect(JSON.parse(exchange?.body ?? '')).toEqual({
        grant_type: 'authorization_code',
        client_id: lark.clientId,
        client_secret: lark.clientSecret,
        code,
        redirect_uri: 'https://gateway.example.com/oauth/lark',
      });
      expect(info?.path).toBe('/suite/passport/oauth/userinfo');
      expect(info?.headers.authorization).toMatch(/^Bearer u-/);
    });

    it('reports a refused code with Lark’s description', async () => {
      expect(await messageOf(fetchLarkUser(endpoints(), app(), 'nope'))).toBe(
        'Lark refused the code: The authorization code is invalid or has expired',
      );
    });
  });

  describe('WeChat server', () => {
    it('sends the token as the raw Authorization header and answers the WeChat id', async () => {
      const code = wechat.issueCode('wx-openid-1');
      expect(await fetchWeChatId({ address: `${wechat.url}/`, token: wechat.token }, code)).toBe(
        'wx-openid-1',
      );
      const last = wechat.requests.at(-1);
      expect(last?.path).toBe(`/api/wechat/user?code=${code}`);
      expect(last?.headers.authorization).toBe(wechat.token);
    });

    it('refuses an unknown code and passes on the server’s own refusal', async () => {
      expect(await messageOf(fetchWeChatId({ address: wechat.url, token: wechat.token }, '999999'))).toBe(
        'the verification code is wrong or has expired',
      );
      expect(await messageOf(fetchWeChatId({ address: wechat.url, token: 'wrong' }, '123456'))).toBe(
        'no permission: the token is invalid',
      );
    });
  });

  describe('Turnstile', () => {
    it('posts secret, response and remoteip as a form and reads success', async () => {
      const token = turnstile.solve();
      expect(
        await verifyTurnstile({
          verifyUrl: turnstile.url,
          secret: turnstile.secret,
          response: token,
          remoteIp: '203.0.113.9',
        }),
      ).toEqual({ success: true, errorCodes: [] });
      expect(turnstile.calls.at(-1)).toEqual({
        secret: turnstile.secret,
        response: token,
        remoteip: '203.0.113.9',
      });
    });

    it('answers failure with the error codes (a token is valid once)', async () => {
      const token = turnstile.solve();
      await verifyTurnstile({ verifyUrl: turnstile.url, secret: turnstile.secret, response: token });
      expect(
        await verifyTurnstile({ verifyUrl: turnstile.url, secret: turnstile.secret, response: token }),
      ).toEqual({
        success: false,
        errorCodes: ['invalid-input-response'],
      });
      expect(turnstile.calls.at(-1)).not.toHaveProperty('remoteip');
    });
  });

  describe('message pusher', () => {
    it('posts the documented JSON body', async () => {
      await pushMessage(
        { address: `${pusher.url}/push/root`, token: pusher.token },
        { title: 'T', description: 'D', content: 'C' },
      );
      expect(pusher.messages.at(-1)).toEqual({
        title: 'T',
        description: 'D',
        content: 'C',
        url: '',
        channel: '',
        token: pusher.token,
      });
    });

    it('throws with the pusher’s message when it refuses', async () => {
      expect(
        await messageOf(
          pushMessage({ address: pusher.url, token: 'bad' }, { title: 'T', description: 'D', content: 'C' }),
        ),
      ).toBe('the message pusher refused the message: no permission: the token is invalid');
    });
  });

  describe('callProvider', () => {
    it('gives up after the timeout', async () => {
      const started = Date.now();
      const message = await messageOf(
        callProvider({ provider: 'Test', url: `${odd.url}/hang`, timeoutMs: 200 }, z.object({})),
      );
      expect(message).toBe('cannot reach the Test server, please try again later');
      expect(Date.now() - started).toBeLessThan(4000);
    });

    it('refuses an answer that is not the expected JSON', async () => {
      expect(await messageOf(callProvider({ provider: 'Test', url: `${odd.url}/page` }, z.object({})))).toBe(
        'the Test server answered something unexpected, please try again later',
      );
    });
  });
});
