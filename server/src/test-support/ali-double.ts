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
  /** Text-to-image tasks: how they end, and what was asked of them. */
  readonly images: AliImageTasks;
}

export interface AliImageTasks {
  /** The poll that answers a task's end (the ones before answer RUNNING); Infinity: never ends. */
  pollsToFinish: number;
  /** The next task created fails with this code and message (at its end, as DashScope's do). */
  failNextTask(code: string, message: string): void;
  /** The polls of every task (GET /api/v1/tasks/{id}). */
  polls(): RecordedRequest[];
  /** The bytes of the `index`th image of a task (served at its result URL, without credentials). */
  imageOf(index: number): Buffer;
}

interface ImageTask {
  readonly n: number;
  readonly failure: { code: string; message: string } | undefined;
  polls: number;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

/**
 * A loopback double of DashScope's native API: text-generation (JSON, or with `X-DashScope-SSE:
 * enable` `id:/event:result/:HTTP_STATUS/200/data:` events, incremental), text-embedding, and
 * text-to-image as a task (`X-DashScope-Async: enable` required): PENDING when created, RUNNING
 * until its `pollsToFinish`th poll, then SUCCEEDED with result URLs it serves, or FAILED with a
 * code and message. The key as a bearer; errors `{code, message, request_id}`.
 */
export const startAliDouble = async (key = 'sk-dashscope-secret-000'): Promise<AliDouble> => {
  const requests: RecordedRequest[] = [];
  const failures: { status: number; code: string; message: string }[] = [];
  const tasks = new Map<string, ImageTask>();
  const taskFailures: { code: string; message: string }[] = [];
  const images = {
    pollsToFinish: 2,
    failNextTask: (code: string, message: string) => {
      taskFailures.push({ code, message });
    },
    polls: () => requests.filter((request) => request.path.startsWith('/api/v1/tasks/')),
    imageOf: (index: number) => Buffer.from(`\x89PNG\r\n\x1a\n image ${index} 🖼`, 'utf8'),
  };
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
    // A task's result URL: signed in its query (as OSS links are), fetched without DashScope's key.
    const result = /^\/results\/[\w-]+-(\d+)\.png$/.exec(path);
    if (result) {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(images.imageOf(Number(result[1])));
      return;
    }
    if (request.headers['authorization'] !== `Bearer ${key}`)
      return error(401, 'InvalidApiKey', 'Invalid API-key provided.');
    const failure = failures.shift();
    if (failure) return error(failure.status, failure.code, failure.message);
    if (path === '/api/v1/services/aigc/text2image/image-synthesis') {
      if (request.headers['x-dashscope-async'] !== 'enable')
        return error(403, 'AccessDenied', 'current user api does not support synchronous calls');
      const parameters = (parsed?.['parameters'] ?? {}) as { n?: unknown };
      const id = `task-${tasks.size + 1}-${Date.now()}`;
      const n = typeof parameters.n === 'number' ? parameters.n : 1;
      tasks.set(id, { n, failure: taskFailures.shift(), polls: 0 });
      return json(response, 200, {
        output: { task_status: 'PENDING', task_id: id },
        request_id: `req-${id}`,
      });
    }
    if (request.method === 'GET' && path.startsWith('/api/v1/tasks/')) {
      const id = decodeURIComponent(path.slice('/api/v1/tasks/'.length));
      const task = tasks.get(id);
      if (!task) return json(response, 200, { output: { task_id: id, task_status: 'UNKNOWN' } });
      task.polls += 1;
      const output = { task_id: id, submit_time: '2024-01-01 00:00:00.000' };
      if (task.polls < images.pollsToFinish)
        return json(response, 200, { output: { ...output, task_status: 'RUNNING' } });
      if (task.failure)
        return json(response, 200, {
          output: { ...output, task_status: 'FAILED', ...task.failure },
          request_id: `req-${id}`,
        });
      const origin = `http://${request.headers.host ?? ''}`;
      const results = Array.from({ length: task.n }, (_, index) => ({
        url: `${origin}/results/${id}-${index}.png?Expires=1700000000&Signature=c2lnbmVk`,
      }));
      return json(response, 200, {
        output: {
          ...output,
          task_status: 'SUCCEEDED',
          results,
          task_metrics: { TOTAL: task.n, SUCCEEDED: task.n, FAILED: 0 },
        },
        usage: { image_count: task.n },
        request_id: `req-${id}`,
      });
    }
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
    images,
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
