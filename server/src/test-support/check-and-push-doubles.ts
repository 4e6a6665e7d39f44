import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { listenHandler, type Listening } from './listen.js';

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

export interface TurnstileDouble extends Listening {
  readonly secret: string;
  /** The form fields of every siteverify call. */
  readonly calls: Record<string, string>[];
  /** A token the widget would hand the browser after a solved challenge (valid once). */
  solve(): string;
}

/**
 * Cloudflare's siteverify: a form POST of secret, response and remoteip; answers success with
 * challenge_ts and hostname, or success false with error-codes.
 */
export const startTurnstileDouble = async (): Promise<TurnstileDouble> => {
  const secret = '0x4AAAAAAAdoubleSecretKey';
  const calls: Record<string, string>[] = [];
  const valid = new Set<string>();
  const server = await listenHandler((request, body, response) => {
    const fields = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
    calls.push(fields);
    if (request.method !== 'POST')
      return json(response, 405, { success: false, 'error-codes': ['bad-request'] });
    if (fields['secret'] !== secret)
      return json(response, 200, { success: false, 'error-codes': ['invalid-input-secret'] });
    const token = fields['response'] ?? '';
    if (!valid.delete(token))
      return json(response, 200, {
        success: false,
        'error-codes': [token === '' ? 'missing-input-response' : 'invalid-input-response'],
      });
    json(response, 200, {
      success: true,
      challenge_ts: new Date().toISOString(),
      hostname: 'localhost',
      'error-codes': [],
      action: '',
      cdata: '',
    });
  });
  return {
    ...server,
    secret,
    calls,
    solve: () => {
      const token = `XXXX.DUMMY.TOKEN.${randomBytes(8).toString('hex')}`;
      valid.add(token);
      return token;
    },
  };
};

export interface PushedMessage {
  readonly title: string;
  readonly description: string;
  readonly content: string;
  readonly url: string;
  readonly channel: string;
  readonly token: string;
}

export interface MessagePusherDouble extends Listening {
  readonly token: string;
  readonly messages: PushedMessage[];
  /** Refuse with success false (as a misconfigured pusher does). */
  refuse: boolean;
}

/** message-pusher: POST JSON {title, description, content, url, channel, token} → {success, message}. */
export const startMessagePusherDouble = async (): Promise<MessagePusherDouble> => {
  const token = 'pusher-double-token';
  const messages: PushedMessage[] = [];
  const state = { refuse: false };
  const server = await listenHandler((_request, body, response) => {
    const message = JSON.parse(body.toString('utf8')) as PushedMessage;
    if (state.refuse || message.token !== token)
      return json(response, 200, { success: false, message: 'no permission: the token is invalid' });
    messages.push(message);
    json(response, 200, { success: true, message: 'ok' });
  });
  return {
    ...server,
    token,
    messages,
    get refuse() {
      return state.refuse;
    },
    set refuse(value: boolean) {
      state.refuse = value;
    },
  };
};
