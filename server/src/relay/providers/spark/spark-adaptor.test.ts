import { readFileSync } from 'node:fs';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import { verifySparkUrl } from '../../../test-support/spark-double.js';
import type { RelayRequestMeta } from '../adaptor.js';
import { sparkAdaptor, SPARK_BASE_URL } from './spark-adaptor.js';

const APP_ID = '5f8a2c1e';
const API_SECRET = 'MjlmNzkzNmZkMDQ2OTc4EXAMPLEsecret';
const API_KEY = 'addd2272b6d8b7c8abdd79531420ca3b';
const NOW = Date.parse('2024-05-08T10:00:26Z');

const metaOf = (
  over: Partial<RelayRequestMeta> = {},
  key = `${APP_ID}|${API_SECRET}|${API_KEY}`,
): RelayRequestMeta => ({
  mode: 'chat',
  path: '/v1/chat/completions',
  model: 'Spark-Max',
  stream: false,
  channel: { id: 1, type: CHANNEL_TYPE.xunfei, key, baseUrl: SPARK_BASE_URL, config: {} },
  body: {},
  clientHeaders: {},
  ...over,
});
const CHAT = { messages: [{ role: 'user', content: '你是谁' }], temperature: 0.5, max_tokens: 1024 };

describe('iFlytek Spark adaptor', () => {
  beforeEach(() => vi.useFakeTimers({ now: NOW, toFake: ['Date'] }));
  afterEach(() => vi.useRealTimers());

  it('signs the documented WebSocket URL (host, date, request-line) and sends the documented first frame', () => {
    const request = sparkAdaptor.buildRequest(CHAT, metaOf());
    const url = new URL(request.url);
    expect(`${url.origin}${url.pathname}`).toBe('wss://spark-api.xf-yun.com/v3.5/chat');
    expect([...url.searchParams.keys()]).toEqual(['authorization', 'date', 'host']);
    expect(url.searchParams.get('date')).toBe('Wed, 08 May 2024 10:00:26 GMT');
    expect(url.searchParams.get('host')).toBe('spark-api.xf-yun.com');
    expect(
      verifySparkUrl(`${url.pathname}${url.search}`, 'spark-api.xf-yun.com', {
        apiKey: API_KEY,
        apiSecret: API_SECRET,
      }),
    ).toBeUndefined();
    expect(
      verifySparkUrl(`${url.pathname}${url.search}`, 'spark-api.xf-yun.com', {
        apiKey: API_KEY,
        apiSecret: 'other',
      }),
    ).toBe('signature mismatch');
    expect(
      verifySparkUrl(`/v4.0/chat${url.search}`, 'spark-api.xf-yun.com', {
        apiKey: API_KEY,
        apiSecret: API_SECRET,
      }),
    ).toBe('signature mismatch');
    expect(request.url).not.toContain(API_SECRET);
    expect(JSON.parse(String(request.body))).toEqual({
      header: { app_id: APP_ID },
      parameter: { chat: { domain: 'generalv3.5', temperature: 0.5, max_tokens: 1024 } },
      payload: { message: { text: [{ role: 'user', content: '你是谁' }] } },
    });
  });

  it.each([
    ['Spark-Lite', undefined, '/v1.1/chat', 'lite'],
    ['Spark-Pro', undefined, '/v3.1/chat', 'generalv3'],
    ['Spark-Pro-128K', undefined, '/chat/pro-128k', 'pro-128k'],
    ['Spark-Max-32K', undefined, '/chat/max-32k', 'max-32k'],
    ['Spark-4.0-Ultra', undefined, '/v4.0/chat', '4.0Ultra'],
    ['SparkDesk-v2.1', undefined, '/v2.1/chat', 'generalv2'],
    ['SparkDesk', 'v3.1', '/v3.1/chat', 'generalv3'],
    ['SparkDesk', undefined, '/v1.1/chat', 'lite'],
  ])('%s (api_version %s) goes to %s with domain %s', (model, apiVersion, path, domain) => {
    const meta = metaOf({ model });
    const request = sparkAdaptor.buildRequest(CHAT, {
      ...meta,
      channel: {
        ...meta.channel,
        baseUrl: 'http://127.0.0.1:9',
        config: apiVersion ? { api_version: apiVersion } : {},
      },
    });
    expect(request.url.split('?')[0]).toBe(`ws://127.0.0.1:9${path}`);
    expect(JSON.parse(String(request.body))).toMatchObject({ parameter: { chat: { domain } } });
  });

  it('sends tools as functions (v3 and later) and reads a function call', () => {
    const body = {
      ...CHAT,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    };
    expect(JSON.parse(String(sparkAdaptor.buildRequest(body, metaOf()).body))).toMatchObject({
      payload: {
        functions: { text: [{ name: 'get_weather', description: '', parameters: { type: 'object' } }] },
      },
    });
    const call = {
      header: { code: 0, message: 'Success', sid: 's1', status: 2 },
      payload: {
        choices: {
          status: 2,
          seq: 0,
          text: [
            {
              content: '',
              role: 'assistant',
              index: 0,
              function_call: { name: 'get_weather', arguments: '{"location":"Paris"}' },
            },
          ],
        },
      },
    };
    const parsed = sparkAdaptor.parseResponse([call], metaOf()).body as {
      choices: { message: unknown; finish_reason: string }[];
    };
    expect(parsed.choices[0]?.finish_reason).toBe('tool_calls');
    expect(parsed.choices[0]?.message).toMatchObject({
      tool_calls: [{ function: { name: 'get_weather', arguments: '{"location":"Paris"}' } }],
    });
  });

  it('gathers the documented frames into one answer with the last frame’s usage', () => {
    const frames = JSON.parse(
      readFileSync(new URL('spark-response.recorded.json', import.meta.url), 'utf8'),
    ) as unknown;
    const parsed = sparkAdaptor.parseResponse(frames, metaOf());
    expect(parsed.usage).toEqual({ prompt_tokens: 5, completion_tokens: 18, total_tokens: 23 });
    expect(parsed.body).toMatchObject({
      id: 'chatcmpl-cht000cb087@dx18793cd421fb894542',
      choices: [
        {
          message: { role: 'assistant', content: '你好！我是讯飞星火认知大模型 ✨，很高兴为你服务。' },
          finish_reason: 'stop',
        },
      ],
    });
  });

  it('answers an error frame at its meaning (11200 → 401), the secret never quoted', () => {
    const frame = { header: { code: 11200, message: `AppIdNoAuthError ${API_SECRET}`, sid: 's', status: 2 } };
    let thrown: unknown;
    try {
      sparkAdaptor.parseResponse([frame], metaOf());
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ status: 401, code: '11200', message: 'AppIdNoAuthError [redacted]' });
    expect(sparkAdaptor.parseError(frame)).toMatchObject({ code: '11200', type: 'xunfei_error' });
  });

  it('sends a key without | (an HTTP API password) to the OpenAI-compatible endpoint with Bearer', () => {
    const request = sparkAdaptor.buildRequest(
      { model: 'lite', ...CHAT },
      metaOf({ model: 'lite', stream: true }, 'httpPassword123'),
    );
    expect(request.url).toBe('https://spark-api-open.xf-yun.com/v1/chat/completions');
    expect(request.headers['Authorization'] ?? request.headers['authorization']).toBe(
      'Bearer httpPassword123',
    );
    const translate = sparkAdaptor.translateStream(metaOf({ stream: true }, 'httpPassword123'));
    const chunk = {
      id: 'c',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: '你好' } }],
    };
    expect(translate({ event: '', data: JSON.stringify(chunk) }).chunks).toEqual([chunk]);
    expect(translate({ event: '', data: '[DONE]' }).done).toBe(true);
  });
});
