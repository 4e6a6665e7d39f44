import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { listenHandler, type Listening } from './listen.js';
import type { RecordedRequest } from './openai-double.js';

export interface ZhipuDouble extends Listening {
  readonly requests: RecordedRequest[];
  /** The channel key the double accepts: `id.secret`. */
  readonly key: string;
  /** Answer the next request with this status and Zhipu v4 error. */
  failNext(status: number, code: string, message: string): void;
  reply: string;
  usage: { prompt_tokens: number; completion_tokens: number };
  /** Whether a v3 stream's finishing event carries its `meta:` (the usage); true by default. */
  v3Meta: boolean;
  readonly vector: readonly number[];
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

const decode = (part: string | undefined): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

/** Checks the bearer as Zhipu does: HS256 over header.payload with the secret, sign_type SIGN, api_key, exp (ms) ahead. */
const validJwt = (authorization: string | undefined, id: string, secret: string): boolean => {
  const [header, payload, signature = '', extra] = (authorization ?? '').replace(/^Bearer /, '').split('.');
  if (extra !== undefined) return false;
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  const head = decode(header);
  const claims = decode(payload);
  return (
    head?.['alg'] === 'HS256' &&
    head['sign_type'] === 'SIGN' &&
    claims?.['api_key'] === id &&
    typeof claims['exp'] === 'number' &&
    claims['exp'] > Date.now()
  );
};

/**
 * A loopback double of Zhipu's v4 API (OpenAI-compatible): `/api/paas/v4/chat/completions` (JSON, or
 * SSE chunks with the usage in the last and `[DONE]`) and `/api/paas/v4/embeddings`, and of the v3
 * model API (`/api/paas/v3/model-api/{model}/invoke` and `sse-invoke`, the usage on the stream's
 * finishing `meta:`), checking the JWT against the key's secret; errors `{error: {code, message}}`
 * (401 code 1002 for a bad token).
 */
export const startZhipuDouble = async (
  id = 'zhipu-id-4d2a',
  secret = 'zhipu-secret-9b8e7f',
): Promise<ZhipuDouble> => {
  const requests: RecordedRequest[] = [];
  const failures: { status: number; code: string; message: string }[] = [];
  const vector = [0.5, -0.25, 0.125];
  const state = {
    reply: '智绘蓝图，AI 赋能未来。',
    usage: { prompt_tokens: 31, completion_tokens: 9 },
    v3Meta: true,
  };
  const usage = () => ({
    ...state.usage,
    total_tokens: state.usage.prompt_tokens + state.usage.completion_tokens,
  });

  const taskId = '8023318729410566227';
  /**
   * v3 (chatglm_*): `invoke` answers `{code, msg, success, data}` with the content quoted; `sse-invoke`
   * streams `event:add` events with the text as data, then `event:finish` whose `meta:` has the usage.
   */
  const v3Answer = (response: ServerResponse, stream: boolean) => {
    if (!stream)
      return json(response, 200, {
        code: 200,
        msg: '操作成功',
        success: true,
        data: {
          request_id: taskId,
          task_id: taskId,
          task_status: 'SUCCESS',
          choices: [{ role: 'assistant', content: JSON.stringify(state.reply) }],
          usage: usage(),
        },
      });
    response.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
    for (const content of state.reply.split(/(?<=，)/))
      response.write(`event:add\nid:${taskId}\ndata:${content}\n\n`);
    const meta = { task_status: 'SUCCESS', usage: usage(), task_id: taskId, request_id: taskId };
    response.end(
      `event:finish\nid:${taskId}\ndata:\n${state.v3Meta ? `meta:${JSON.stringify(meta)}\n` : ''}\n`,
    );
  };

  const server = await listenHandler((request, body, response) => {
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const path = (request.url ?? '').split('?')[0] ?? '';
    requests.push({ method: request.method ?? '', path, headers: request.headers, body, json: parsed });
    if (!validJwt(request.headers['authorization'], id, secret))
      return json(response, 401, {
        error: { code: '1002', message: 'Authorization Token非法，请确认Authorization Token正确传递。' },
      });
    const failure = failures.shift();
    if (failure)
      return json(response, failure.status, { error: { code: failure.code, message: failure.message } });
    const model = typeof parsed?.['model'] === 'string' ? parsed['model'] : '';
    if (path === '/api/paas/v4/embeddings')
      return json(response, 200, {
        model,
        data: [{ index: 0, object: 'embedding', embedding: vector }],
        object: 'list',
        usage: { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 },
      });
    const v3 = /^\/api\/paas\/v3\/model-api\/([\w.-]+)\/(invoke|sse-invoke)$/.exec(path);
    if (v3) return v3Answer(response, v3[2] === 'sse-invoke');
    if (path !== '/api/paas/v4/chat/completions')
      return json(response, 404, { error: { code: '1211', message: '模型不存在' } });
    const base = { id: '8313807536837492492', created: 1706092316, model };
    if (parsed?.['stream'] === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const content of state.reply.split(/(?<=，)/))
        response.write(
          `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content } }] })}\n\n`,
        );
      response.write(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, finish_reason: 'stop', delta: { role: 'assistant', content: '' } }], usage: usage() })}\n\n`,
      );
      response.end('data: [DONE]\n\n');
      return;
    }
    json(response, 200, {
      ...base,
      request_id: base.id,
      choices: [{ finish_reason: 'stop', index: 0, message: { content: state.reply, role: 'assistant' } }],
      usage: usage(),
    });
  });

  return {
    url: server.url,
    close: () => server.close(),
    requests,
    key: `${id}.${secret}`,
    vector,
    failNext: (status, code, message) => {
      failures.push({ status, code, message });
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
    get v3Meta() {
      return state.v3Meta;
    },
    set v3Meta(value) {
      state.v3Meta = value;
    },
  };
};
