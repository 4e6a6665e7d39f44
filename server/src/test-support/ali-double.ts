import type { ServerResponse } from 'node:http';
import { listenHandler, type Listening } from './listen.js';
import type { RecordedRequest } from './openai-double.js';

export interface AliDouble extends Listening {
  readonly requests: RecordedRequest[];
  readonly key: string;
  /** Answer the next request with this status and DashScope error. */
  failNext(status: number, code: string, message: string): void;
  reply: string;
  usage: { input_tokens: number; output_tokens: number };
  readonly vector: readonly number[];
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

/**
 * A loopback double of DashScope's native API: text-generation (JSON, or with `X-DashScope-SSE:
 * enable` `id:/event:result/:HTTP_STATUS/200/data:` events, incremental) and text-embedding, the key
 * as a bearer; errors `{code, message, request_id}`.
 */
export const startAliDouble = async (key = 'sk-dashscope-secret-000'): Promise<AliDouble> => {
  const requests: RecordedRequest[] = [];
  const failures: { status: number; code: string; message: string }[] = [];
  const vector = [0.25, -0.5, 0.125];
  const state = { reply: '我是通义千问，由阿里云开发。', usage: { input_tokens: 10, output_tokens: 8 } };
  const usage = (output: number) => ({
    input_tokens: state.usage.input_tokens,
    output_tokens: output,
    total_tokens: state.usage.input_tokens + output,
  });

  const server = await listenHandler((request, body, response) => {
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const path = (request.url ?? '').split('?')[0] ?? '';
    requests.push({ method: request.method ?? '', path, headers: request.headers, body, json: parsed });
    const error = (status: number, code: string, message: string) =>
      json(response, status, { code, message, request_id: 'req-ali-1' });
    if (request.headers['authorization'] !== `Bearer ${key}`)
      return error(401, 'InvalidApiKey', 'Invalid API-key provided.');
    const failure = failures.shift();
    if (failure) return error(failure.status, failure.code, failure.message);
    if (path === '/api/v1/services/embeddings/text-embedding/text-embedding') {
      const input = parsed?.['input'] as { texts?: unknown[] } | undefined;
      const texts = input?.texts ?? [];
      return json(response, 200, {
        output: { embeddings: texts.map((_, index) => ({ text_index: index, embedding: vector })) },
        usage: { total_tokens: 5 * texts.length },
        request_id: 'req-ali-emb',
      });
    }
    if (path !== '/api/v1/services/aigc/text-generation/generation')
      return error(404, 'NotFound', `${path} not found`);
    if (request.headers['x-dashscope-sse'] === 'enable') {
      response.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
      const pieces = state.reply.split(/(?<=，)/);
      pieces.forEach((content, index) => {
        const last = index === pieces.length - 1;
        const data = {
          output: {
            choices: [{ message: { content, role: 'assistant' }, finish_reason: last ? 'stop' : 'null' }],
          },
          usage: usage(last ? state.usage.output_tokens : index + 1),
          request_id: 'req-ali-stream',
        };
        response.write(`id:${index + 1}\nevent:result\n:HTTP_STATUS/200\ndata:${JSON.stringify(data)}\n\n`);
      });
      response.end();
      return;
    }
    json(response, 200, {
      output: { choices: [{ finish_reason: 'stop', message: { role: 'assistant', content: state.reply } }] },
      usage: usage(state.usage.output_tokens),
      request_id: 'req-ali-chat',
    });
  });

  return {
    url: server.url,
    close: () => server.close(),
    requests,
    key,
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
  };
};
