import { readFileSync } from 'node:fs';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { dataOf, piecesOf, relayPieces } from '../../../test-support/adaptor-conformance-support.js';
import type { RelayMode, RelayRequestMeta } from '../adaptor.js';
import { zhipuAdaptor } from './zhipu-adaptor.js';
import { zhipuJwt } from './zhipu-jwt.js';

const ID = '5f1d7a3c9b8e4d2a';
const SECRET = 'Zk3qW9xL2mN7pR4t';
const metaOf = (model: string, mode: RelayMode = 'chat', stream = false): RelayRequestMeta => ({
  mode,
  path: '/v1/chat/completions',
  model,
  stream,
  channel: {
    id: 1,
    type: CHANNEL_TYPE.zhipu,
    key: `${ID}.${SECRET}`,
    baseUrl: 'https://open.bigmodel.cn',
    config: {},
  },
  body: {},
  clientHeaders: {},
});
const bearer = (authorization: string | undefined) => (authorization ?? '').replace(/^Bearer /, '');

describe('Zhipu adaptor', () => {
  it('signs a JWT as one-api does, verified with the secret, and reuses it', async () => {
    const now = Date.now();
    const jwt = zhipuJwt(`${ID}.${SECRET}`, now)!;
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'HS256', sign_type: 'SIGN', typ: 'JWT' });
    const { payload } = await jwtVerify(jwt, new TextEncoder().encode(SECRET));
    expect(payload).toEqual({ api_key: ID, exp: now + 24 * 3600 * 1000, timestamp: now });
    await expect(jwtVerify(jwt, new TextEncoder().encode('another-secret'))).rejects.toThrow();
    expect(zhipuJwt(`${ID}.${SECRET}`, now + 1000)).toBe(jwt);
    expect(zhipuJwt(`${ID}.${SECRET}`, now + 23.5 * 3600 * 1000)).not.toBe(jwt);
    expect(zhipuJwt('no-dot-key')).toBeUndefined();
  });

  it('sends glm-* to v4 chat completions with the JWT as the bearer, temperature clamped', async () => {
    const request = zhipuAdaptor.buildRequest(
      {
        model: 'glm-4',
        temperature: 1.5,
        messages: [{ role: 'user', content: '作为一名营销专家，请为我的产品创作一个吸引人的slogan' }],
      },
      metaOf('glm-4', 'chat', true),
    );
    expect(request.url).toBe('https://open.bigmodel.cn/api/paas/v4/chat/completions');
    const { payload } = await jwtVerify(
      bearer(request.headers['authorization']),
      new TextEncoder().encode(SECRET),
    );
    expect(payload['api_key']).toBe(ID);
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'glm-4',
      temperature: 1,
      messages: [{ role: 'user', content: '作为一名营销专家，请为我的产品创作一个吸引人的slogan' }],
      stream_options: { include_usage: true },
    });
  });

  it('sends embeddings and images to their v4 paths', () => {
    const embeddings = zhipuAdaptor.buildRequest(
      { model: 'embedding-3', input: '你好' },
      metaOf('embedding-3', 'embeddings'),
    );
    expect(embeddings.url).toBe('https://open.bigmodel.cn/api/paas/v4/embeddings');
    expect(JSON.parse(String(embeddings.body))).toEqual({ model: 'embedding-3', input: '你好' });
    const images = zhipuAdaptor.buildRequest(
      { model: 'cogview-3', prompt: '一只可爱的小猫咪', n: 1 },
      metaOf('cogview-3', 'images'),
    );
    expect(images.url).toBe('https://open.bigmodel.cn/api/paas/v4/images/generations');
    expect(JSON.parse(String(images.body))).toEqual({ model: 'cogview-3', prompt: '一只可爱的小猫咪' });
  });

  it('sends chatglm_* to v3 invoke / sse-invoke with the bare JWT, and reads its answer', async () => {
    const body = { model: 'chatglm_turbo', top_p: 0.7, messages: [{ role: 'user', content: '你好' }] };
    const plain = zhipuAdaptor.buildRequest(body, metaOf('chatglm_turbo'));
    expect(plain.url).toBe('https://open.bigmodel.cn/api/paas/v3/model-api/chatglm_turbo/invoke');
    await jwtVerify(plain.headers['authorization'] ?? '', new TextEncoder().encode(SECRET));
    expect(JSON.parse(String(plain.body))).toEqual({
      prompt: [{ role: 'user', content: '你好' }],
      top_p: 0.7,
    });
    const streamed = zhipuAdaptor.buildRequest(body, metaOf('chatglm_turbo', 'chat', true));
    expect(streamed.url).toBe('https://open.bigmodel.cn/api/paas/v3/model-api/chatglm_turbo/sse-invoke');
    expect(JSON.parse(String(streamed.body))).toMatchObject({ incremental: true });
    const parsed = zhipuAdaptor.parseResponse(
      {
        code: 200,
        msg: '操作成功',
        success: true,
        data: {
          request_id: '8023318729410566227',
          task_id: '8023318729410566227',
          task_status: 'SUCCESS',
          choices: [{ role: 'assistant', content: '" 你好👋！我是人工智能助手。"' }],
          usage: { prompt_tokens: 2, completion_tokens: 11, total_tokens: 13 },
        },
      },
      metaOf('chatglm_turbo'),
    );
    expect(parsed.usage).toEqual({ prompt_tokens: 2, completion_tokens: 11, total_tokens: 13 });
    expect(parsed.text).toBe(' 你好👋！我是人工智能助手。');
    expect(() =>
      zhipuAdaptor.parseResponse({ code: 1261, msg: 'Prompt 超长', success: false }, metaOf('chatglm_turbo')),
    ).toThrow('Prompt 超长');
  });

  it('translates a v3 stream: add events, then finish', () => {
    const translate = zhipuAdaptor.translateStream(metaOf('chatglm_turbo', 'chat', true));
    const first = translate({ event: 'add', data: '你好' });
    const end = translate({ event: 'finish', data: '' });
    expect(first.chunks).toMatchObject([
      { choices: [{ delta: { role: 'assistant', content: '你好' }, finish_reason: null }] },
    ]);
    expect(end).toMatchObject({ done: true, chunks: [{ choices: [{ finish_reason: 'stop' }] }] });
    expect(translate({ event: 'error', data: 'bad' }).error?.message).toBe('bad');
  });

  const V3_STREAM = readFileSync(new URL('./zhipu-v3-stream.recorded.sse', import.meta.url));
  const V3_TEXT = '你好👋！我是人工智能助手，\n很高兴见到你。';
  const contentOf = (out: string) =>
    dataOf(out)
      .filter((data) => data !== '[DONE]')
      .map((data) => (JSON.parse(data) as { choices: { delta: { content?: string } }[] }).choices[0])
      .map((choice) => choice?.delta.content ?? '')
      .join('');

  it('bills a v3 stream by the usage on its finish event’s meta:, however its bytes are cut', async () => {
    const meta = metaOf('chatglm_turbo', 'chat', true);
    const cuts = [
      [V3_STREAM],
      piecesOf(V3_STREAM, 1),
      ...[...V3_STREAM.keys()].slice(1).map((at) => [V3_STREAM.subarray(0, at), V3_STREAM.subarray(at)]),
    ];
    for (const [index, pieces] of cuts.entries()) {
      const relayed = await relayPieces(zhipuAdaptor, meta, pieces, true);
      expect(relayed.outcomes, `cut ${index}`).toEqual([
        {
          usage: { prompt_tokens: 2, completion_tokens: 17, total_tokens: 19 },
          text: V3_TEXT,
          aborted: false,
        },
      ]);
      expect(contentOf(relayed.out), `cut ${index}`).toBe(V3_TEXT);
      expect(dataOf(relayed.out).at(-2), `cut ${index}`).toContain('"usage":{"prompt_tokens":2');
    }
  });

  it('leaves a v3 stream without meta: to local counting, and reads the finish event’s data as text', async () => {
    const stream = Buffer.from('event:add\nid:1\ndata:你好\n\nevent:finish\nid:1\ndata:，再见\n\n', 'utf8');
    const relayed = await relayPieces(zhipuAdaptor, metaOf('chatglm_turbo', 'chat', true), [stream], true);
    expect(relayed.outcomes).toEqual([{ usage: undefined, text: '你好，再见', aborted: false }]);
    expect(contentOf(relayed.out)).toBe('你好，再见');
  });
});
