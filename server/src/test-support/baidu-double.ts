import type { ServerResponse } from 'node:http';
import { listenHandler, type Listening } from './listen.js';
import type { RecordedRequest } from './openai-double.js';

export interface BaiduDouble extends Listening {
  readonly requests: RecordedRequest[];
  /** The channel key the double accepts: `APIKey|SecretKey`. */
  readonly key: string;
  /** How many access tokens the OAuth endpoint issued. */
  readonly tokenFetches: { value: number };
  /** The access token issued last (the one the API accepts). */
  readonly issued: { value: string };
  /** Answer the next chat or embeddings request (with 200, as Baidu does) with this error. */
  failNext(code: number, message: string): void;
  reply: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  readonly vector: readonly number[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

/**
 * A loopback double of Baidu's Wenxin (Qianfan v1) API in its documented wire format: the OAuth
 * endpoint `/oauth/2.0/token` (client credentials, 30-day tokens, answered after a short delay so
 * concurrent callers overlap), `/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/<endpoint>` (JSON, or
 * `data:` events with `is_end` when `stream` is set) and `…/embeddings/<endpoint>`, both checking
 * `?access_token=`; errors `{error_code, error_msg}` with HTTP 200.
 */
export const startBaiduDouble = async (
  apiKey = 'baidu-ak-000111',
  secretKey = 'baidu-sk-secret-222',
): Promise<BaiduDouble> => {
  const requests: RecordedRequest[] = [];
  const failures: { code: number; message: string }[] = [];
  const tokenFetches = { value: 0 };
  const issued = { value: '' };
  const vector = [0.018314670771360397, 0.00942440889775753, -0.036381513625383374];
  const state = {
    reply: '北京是中国的首都，也是 a capital city.',
    usage: { prompt_tokens: 5, completion_tokens: 11 },
  };

  const usage = (completion: number) => ({
    prompt_tokens: state.usage.prompt_tokens,
    completion_tokens: completion,
    total_tokens: state.usage.prompt_tokens + completion,
  });

  const stream = async (response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const pieces = state.reply.split(/(?<=，)/);
    for (const [index, result] of pieces.entries()) {
      const end = index === pieces.length - 1;
      const completion = end ? state.usage.completion_tokens : index + 1;
      const event = {
        id: 'as-double-stream',
        object: 'chat.completion',
        created: 1709089502,
        sentence_id: index,
        is_end: end,
        is_truncated: false,
        result,
        need_clear_history: false,
        finish_reason: 'normal',
        usage: usage(completion),
      };
      if (response.destroyed) return;
      response.write(`data: ${JSON.stringify(event)}\n\n`);
      await sleep(1);
    }
    response.end();
  };

  const server = await listenHandler(async (request, body, response) => {
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const url = new URL(request.url ?? '/', 'http://double');
    requests.push({
      method: request.method ?? '',
      path: url.pathname,
      headers: request.headers,
      body,
      json: parsed,
    });
    if (url.pathname === '/oauth/2.0/token') {
      const query = url.searchParams;
      if (
        query.get('grant_type') !== 'client_credentials' ||
        query.get('client_id') !== apiKey ||
        query.get('client_secret') !== secretKey
      )
        return json(response, 401, { error: 'invalid_client', error_description: 'unknown client id' });
      tokenFetches.value += 1;
      await sleep(30);
      issued.value = `24.double${tokenFetches.value}.2592000.1485516651.282335-8574074`;
      return json(response, 200, { access_token: issued.value, expires_in: 2592000, scope: 'public' });
    }
    const match = /^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/(chat|embeddings)\/([\w.-]+)$/.exec(
      url.pathname,
    );
    if (!match) return json(response, 404, { error_code: 3, error_msg: 'Unsupported openapi method' });
    if (!issued.value || url.searchParams.get('access_token') !== issued.value)
      return json(response, 200, { error_code: 110, error_msg: 'Access token invalid or no longer valid' });
    const failure = failures.shift();
    if (failure) return json(response, 200, { error_code: failure.code, error_msg: failure.message });
    if (match[1] === 'embeddings') {
      const inputs = Array.isArray(parsed?.['input']) ? parsed['input'] : [];
      return json(response, 200, {
        id: 'as-gjs275mj6s',
        object: 'embedding_list',
        created: 1687155816,
        data: inputs.map((_, index) => ({ object: 'embedding', embedding: vector, index })),
        usage: { prompt_tokens: 4 * inputs.length, total_tokens: 4 * inputs.length },
      });
    }
    if (parsed?.['stream'] === true) return stream(response);
    json(response, 200, {
      id: 'as-bcmt5ct4iy',
      object: 'chat.completion',
      created: 1680167072,
      result: state.reply,
      is_truncated: false,
      need_clear_history: false,
      usage: usage(state.usage.completion_tokens),
    });
  });

  return {
    url: server.url,
    close: () => server.close(),
    requests,
    key: `${apiKey}|${secretKey}`,
    tokenFetches,
    issued,
    vector,
    failNext: (code, message) => {
      failures.push({ code, message });
    },
    get reply() {
      return state.reply;
    },
    set reply(value) {
      state.reply = value;
    },
    get usage() {
      return state.usage;
    },
    set usage(value) {
      state.usage = value;
    },
  };
};
