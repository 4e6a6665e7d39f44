import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import type { RelayRequestMeta, TaskStep } from '../adaptor.js';
import { aliAdaptor } from './ali-adaptor.js';
import { aliImageTask as task } from './ali-image.js';

const KEY = 'sk-dashscope-0123456789abcdef';
const BASE = 'https://dashscope.aliyuncs.com';
const metaOf = (model: string, body: Record<string, unknown> = {}): RelayRequestMeta => ({
  mode: 'images',
  path: '/v1/images/generations',
  model,
  stream: false,
  channel: { id: 1, type: CHANNEL_TYPE.ali, key: KEY, baseUrl: BASE, config: {} },
  body,
  clientHeaders: {},
});
const read = (body: unknown, meta = metaOf('wanx-v1'), polls = 0): TaskStep => task.read(body, meta, polls);

// DashScope's documented answers (text2image image-synthesis, then GET /api/v1/tasks/{task_id}).
const CREATED = {
  output: { task_status: 'PENDING', task_id: '13b1848b-5493-4c0e-8c44-ca4b6c3bd6a1' },
  request_id: '7574ee8f-38a3-4b1e-9280-11c33ab46e51',
};
const SUCCEEDED = {
  request_id: '85eaba38-0185-99d7-8d16-4d9135238846',
  output: {
    task_id: '13b1848b-5493-4c0e-8c44-ca4b6c3bd6a1',
    task_status: 'SUCCEEDED',
    results: [
      { url: 'https://dashscope-result-bj.oss-cn-beijing.aliyuncs.com/1.png?Expires=1&Signature=a' },
      { url: 'https://dashscope-result-bj.oss-cn-beijing.aliyuncs.com/2.png?Expires=1&Signature=b' },
    ],
    task_metrics: { TOTAL: 2, SUCCEEDED: 2, FAILED: 0 },
  },
  usage: { image_count: 2 },
};
const FAILED = {
  request_id: 'e5d70b02-ebd3-98ce-9fe8-759d7d7b107d',
  output: {
    task_id: '86ecf553-d340-4e21-af6e-a0c6a421c010',
    task_status: 'FAILED',
    code: 'InvalidParameter',
    message: 'The size is not match the allowed size ["1024*1024", "720*1280", "1280*720"]',
  },
};

describe('Alibaba DashScope text-to-image (an asynchronous task)', () => {
  it('creates the task with X-DashScope-Async, the size as W*H and one-api’s ali- prefix dropped', () => {
    const body = {
      model: 'ali-stable-diffusion-xl',
      prompt: '一只奔跑的猫',
      negative_prompt: '模糊',
      size: '1024x576',
      n: 2,
      seed: 42,
      style: 'vivid',
      response_format: 'url',
    };
    const request = aliAdaptor.buildRequest(body, metaOf('ali-stable-diffusion-xl', body));
    expect(request.url).toBe(`${BASE}/api/v1/services/aigc/text2image/image-synthesis`);
    expect(request.method).toBeUndefined();
    expect(request.headers).toEqual({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'x-dashscope-async': 'enable',
    });
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'stable-diffusion-xl',
      input: { prompt: '一只奔跑的猫', negative_prompt: '模糊' },
      parameters: { size: '1024*576', n: 2, seed: 42 },
    });
    const plain = aliAdaptor.buildRequest({ prompt: 'a cat', style: '<watercolor>' }, metaOf('wanx-v1'));
    expect(JSON.parse(String(plain.body))).toEqual({
      model: 'wanx-v1',
      input: { prompt: 'a cat' },
      parameters: { size: '1024*1024', n: 1, style: '<watercolor>' },
    });
    expect(aliAdaptor.task).toBe(task);
    expect(task.applies(metaOf('wanx-v1'))).toBe(true);
    expect(task.applies({ ...metaOf('qwen-turbo'), mode: 'chat' })).toBe(false);
  });

  it('polls GET /api/v1/tasks/{task_id} with the key, soon after the creation, then every second', () => {
    const first = read(CREATED);
    expect(first).toEqual({
      kind: 'poll',
      afterMs: 500,
      request: {
        method: 'GET',
        url: `${BASE}/api/v1/tasks/13b1848b-5493-4c0e-8c44-ca4b6c3bd6a1`,
        headers: { authorization: `Bearer ${KEY}` },
        body: '',
      },
    });
    for (const status of ['PENDING', 'RUNNING', 'SUSPENDED'])
      expect(
        read({ output: { ...CREATED.output, task_status: status } }, metaOf('wanx-v1'), 3),
      ).toMatchObject({
        kind: 'poll',
        afterMs: 1000,
      });
  });

  it('answers a finished task’s URLs in OpenAI’s images shape', () => {
    const step = read(SUCCEEDED, metaOf('wanx-v1', { response_format: 'url' }), 4);
    expect(step.kind).toBe('answer');
    const body =
      step.kind === 'answer' ? (step.answer.body as { created: number; data: unknown[] }) : undefined;
    expect(body?.created).toBeGreaterThan(1_700_000_000);
    expect(body?.data).toEqual(SUCCEEDED.output.results.map(({ url }) => ({ url })));
    const revised = read({
      output: { task_status: 'SUCCEEDED', results: [{ url: 'https://x/1.png', actual_prompt: 'a fat cat' }] },
    });
    expect(revised.kind === 'answer' && revised.answer.body).toMatchObject({
      data: [{ url: 'https://x/1.png', revised_prompt: 'a fat cat' }],
    });
  });

  it('fetches the images for b64_json, leaving out one that could not be fetched', () => {
    const step = read(SUCCEEDED, metaOf('wanx-v1', { response_format: 'b64_json' }), 4);
    if (step.kind !== 'fetch') throw new Error(`expected a fetch, got ${step.kind}`);
    expect(step.urls).toEqual(SUCCEEDED.output.results.map(({ url }) => url));
    const both = step.then([Buffer.from('png one'), Buffer.from('png two')]);
    expect(both.kind === 'answer' && both.answer.body).toMatchObject({
      data: [
        { b64_json: Buffer.from('png one').toString('base64') },
        { b64_json: Buffer.from('png two').toString('base64') },
      ],
    });
    const one = step.then([undefined, Buffer.from('png two')]);
    expect(one.kind === 'answer' && one.answer.body).toMatchObject({
      data: [{ b64_json: Buffer.from('png two').toString('base64') }],
    });
    expect(step.then([undefined, undefined])).toMatchObject({
      kind: 'failed',
      status: 502,
      error: { code: 'image_fetch_failed' },
    });
  });

  it('fails with DashScope’s code and message: the request’s fault at 400, DashScope’s at 502', () => {
    expect(read(FAILED)).toEqual({
      kind: 'failed',
      status: 400,
      error: { code: 'InvalidParameter', message: FAILED.output.message, type: 'ali_error' },
    });
    expect(
      read({
        output: { task_id: 't', task_status: 'FAILED', code: 'InternalError', message: 'Internal error' },
      }),
    ).toMatchObject({
      kind: 'failed',
      status: 502,
      error: { code: 'InternalError', message: 'Internal error' },
    });
    expect(read({ output: { task_id: 't', task_status: 'UNKNOWN' } })).toMatchObject({
      kind: 'failed',
      status: 502,
      error: { code: 'task_unknown' },
    });
    expect(read({ output: { task_id: 't', task_status: 'CANCELED' } })).toMatchObject({
      error: { code: 'task_canceled', message: 'the task was canceled' },
    });
    // Every image of the task refused: the first refusal is the task's error.
    expect(
      read({
        output: {
          task_status: 'SUCCEEDED',
          results: [
            { code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' },
          ],
        },
      }),
    ).toMatchObject({ kind: 'failed', status: 400, error: { code: 'DataInspectionFailed' } });
    expect(read({ code: 'Throttling', message: 'Requests rate limit exceeded' })).toMatchObject({
      kind: 'failed',
      error: { code: 'Throttling', message: 'Requests rate limit exceeded' },
    });
    for (const junk of [undefined, 'text', [], {}, { output: { task_status: 'RUNNING' } }])
      expect(read(junk)).toMatchObject({ kind: 'failed', status: 502, error: { code: 'bad_response' } });
  });
});
