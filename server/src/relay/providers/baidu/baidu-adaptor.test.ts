import { readFileSync } from 'node:fs';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import type { RelayMode, RelayRequestMeta } from '../adaptor.js';
import { baiduAdaptor } from './baidu-adaptor.js';
import { baiduTokenSource } from './baidu-token.js';

const KEY = 'AK0123456789|SK9876543210';
const metaOf = (
  model: string,
  options: { mode?: RelayMode; stream?: boolean; key?: string; baseUrl?: string } = {},
): RelayRequestMeta => ({
  mode: options.mode ?? 'chat',
  path: options.mode === 'embeddings' ? '/v1/embeddings' : '/v1/chat/completions',
  model,
  stream: options.stream ?? false,
  channel: {
    id: 1,
    type: CHANNEL_TYPE.baidu,
    key: options.key ?? KEY,
    baseUrl: options.baseUrl ?? 'https://aip.baidubce.com',
    config: {},
  },
  body: {},
  clientHeaders: {},
  token: '24.6c5e1ff107f0e8bcef8c46d3424a0e78.2592000.1485516651.282335-8574074',
});
const recorded = (name: string): unknown => JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8'));

describe('Baidu Wenxin Qianfan adaptor', () => {
  it('asks the OAuth endpoint for a token with the API Key and Secret Key, and reads its answer', async () => {
    const channel = metaOf('ERNIE-4.0-8K').channel;
    expect(baiduTokenSource.applies?.(channel)).toBe(true);
    expect(baiduTokenSource.applies?.({ ...channel, key: 'bce-v3/ALTAK-abc/def' })).toBe(false);
    const request = await baiduTokenSource.request(channel);
    expect(request.url).toBe(
      'https://aip.baidubce.com/oauth/2.0/token?grant_type=client_credentials&client_id=AK0123456789&client_secret=SK9876543210',
    );
    expect(baiduTokenSource.cacheKey(channel)).not.toContain('SK9876543210');
    // https://cloud.baidu.com/doc/WENXINWORKSHOP/s/Ilkkrb0i5: the documented answer and refusal.
    expect(
      baiduTokenSource.read(200, {
        refresh_token: '25.b55fe1d287227ca97aab219bb249b8ab.315360000.1798284651.282335-8574074',
        expires_in: 2592000,
        scope: 'public wise_adapt',
        session_key:
          '9mzdDZXu3dENdFZQurfg0Vz8slgSgvvOAUebNFzyzcpQ5EnbxbF+hfG9DQkpUVQdh4p6HbQcAiz5RmuBAja1JJGgIdJI',
        access_token: '24.6c5e1ff107f0e8bcef8c46d3424a0e78.2592000.1485516651.282335-8574074',
        session_secret: 'dfac94a3489fe9fca7c3221cbf7525ff',
      }),
    ).toEqual({
      token: '24.6c5e1ff107f0e8bcef8c46d3424a0e78.2592000.1485516651.282335-8574074',
      expiresInSeconds: 2592000,
    });
    expect(
      baiduTokenSource.read(401, { error: 'invalid_client', error_description: 'unknown client id' }),
    ).toEqual({
      message: 'unknown client id',
      type: 'baidu_error',
      code: 'invalid_client',
    });
  });

  it('sends a chat to the model’s endpoint with the access token, system apart (ERNIE-4.0-8K → completions_pro)', () => {
    const meta = metaOf('ERNIE-4.0-8K', { stream: true });
    const request = baiduAdaptor.buildRequest(
      {
        model: 'ERNIE-4.0-8K',
        stream: true,
        temperature: 0.8,
        max_tokens: 512,
        messages: [
          { role: 'system', content: '你是一个导游' },
          { role: 'user', content: '介绍一下北京' },
        ],
      },
      meta,
    );
    expect(request.url).toBe(
      'https://aip.baidubce.com/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/completions_pro?access_token=24.6c5e1ff107f0e8bcef8c46d3424a0e78.2592000.1485516651.282335-8574074',
    );
    expect(request.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({
      messages: [{ role: 'user', content: '介绍一下北京' }],
      system: '你是一个导游',
      temperature: 0.8,
      max_output_tokens: 512,
      stream: true,
    });
  });

  it.each([
    ['ERNIE-Speed-128K', 'chat/ernie-speed-128k'],
    ['ERNIE-Lite-8K-0922', 'chat/eb-instant'],
    ['BLOOMZ-7B', 'chat/bloomz_7b1'],
    ['ERNIE-4.0-Turbo-8K', 'chat/ernie-4.0-turbo-8k'],
    ['Embedding-V1', 'embeddings/embedding-v1'],
    ['bge-large-zh', 'embeddings/bge_large_zh'],
    ['tao-8k', 'embeddings/tao_8k'],
  ])('maps %s to %s', (model, path) => {
    const mode = path.startsWith('embeddings') ? 'embeddings' : 'chat';
    const request = baiduAdaptor.buildRequest(
      { model, input: ['a'], messages: [{ role: 'user', content: 'a' }] },
      metaOf(model, { mode }),
    );
    expect(new URL(request.url).pathname).toBe(`/rpc/2.0/ai_custom/v1/wenxinworkshop/${path}`);
  });

  it('sends embeddings as {input} and reads the documented answer', () => {
    const meta = { ...metaOf('Embedding-V1', { mode: 'embeddings' }), body: { input: ['推荐一些美食'] } };
    const request = baiduAdaptor.buildRequest({ model: 'Embedding-V1', input: '推荐一些美食' }, meta);
    expect(JSON.parse(String(request.body))).toEqual({ input: ['推荐一些美食'] });
    const parsed = baiduAdaptor.parseResponse(
      {
        id: 'as-gjs275mj6s',
        object: 'embedding_list',
        created: 1687155816,
        data: [{ object: 'embedding', embedding: [0.018314670771360397, 0.00942440889775753], index: 0 }],
        usage: { prompt_tokens: 4, total_tokens: 4 },
      },
      meta,
    );
    expect(parsed.body).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.018314670771360397, 0.00942440889775753] }],
      model: 'Embedding-V1',
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    expect(parsed.usage).toEqual({ prompt_tokens: 4, completion_tokens: 0, total_tokens: 4 });
  });

  it('reads the documented answer as a chat.completion with its usage', () => {
    const parsed = baiduAdaptor.parseResponse(
      recorded('./baidu-response.recorded.json'),
      metaOf('ERNIE-4.0-8K'),
    );
    expect(parsed.body).toMatchObject({
      id: 'chatcmpl-as-bcmt5ct4iy',
      object: 'chat.completion',
      created: 1680167072,
      model: 'ERNIE-4.0-8K',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '北京是中国的首都，也是中国的政治、文化和国际交往中心。' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 28, total_tokens: 33 },
    });
  });

  it('answers an error that came with 200 as the provider’s error at a status of its code', () => {
    const read = () =>
      baiduAdaptor.parseResponse(
        { error_code: 336501, error_msg: 'Rate limit reached for RPM' },
        metaOf('ERNIE-4.0-8K'),
      );
    expect(read).toThrow(AppError);
    try {
      read();
    } catch (error) {
      expect(error).toMatchObject({ status: 429, code: '336501', message: 'Rate limit reached for RPM' });
    }
    expect(
      baiduAdaptor.parseError({ error_code: 110, error_msg: 'Access token invalid or no longer valid' }),
    ).toEqual({
      message: 'Access token invalid or no longer valid',
      type: 'baidu_error',
      code: '110',
    });
  });

  it('sends a Qianfan v2 key as a bearer to the OpenAI-compatible v2 host, the body as OpenAI’s', () => {
    const key = 'bce-v3/ALTAK-abc/def';
    const chat = baiduAdaptor.buildRequest(
      { model: 'ernie-4.0-8k', messages: [{ role: 'user', content: 'hi' }] },
      { ...metaOf('ernie-4.0-8k', { key }), token: '' },
    );
    expect(chat.url).toBe('https://qianfan.baidubce.com/v2/chat/completions');
    expect(chat.headers).toEqual({ 'content-type': 'application/json', authorization: `Bearer ${key}` });
    expect(JSON.parse(String(chat.body))).toEqual({
      model: 'ernie-4.0-8k',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const embeddings = baiduAdaptor.buildRequest(
      { model: 'embedding-v1', input: 'hi' },
      metaOf('embedding-v1', { key, mode: 'embeddings', baseUrl: 'http://127.0.0.1:9/proxy' }),
    );
    expect(embeddings.url).toBe('http://127.0.0.1:9/proxy/v2/embeddings');
  });
});
