import { readFileSync } from 'node:fs';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../lib/app-error.js';
import { verifyTc3 } from '../../../test-support/tencent-double.js';
import type { RelayRequestMeta, SseEvent } from '../adaptor.js';
import { tencentAdaptor } from './tencent-adaptor.js';

const SECRET_ID = 'AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE';
const SECRET_KEY = 'Gu5t9xGARNpq86cd98joQYCN3EXAMPLE';
const KEY = `1251000000|${SECRET_ID}|${SECRET_KEY}`;
// 2024-05-08T10:00:26Z
const NOW = 1_715_162_426;

const metaOf = (over: Partial<RelayRequestMeta> = {}): RelayRequestMeta => ({
  mode: 'chat',
  path: '/v1/chat/completions',
  model: 'hunyuan-lite',
  stream: false,
  channel: {
    id: 1,
    type: CHANNEL_TYPE.tencent,
    key: KEY,
    baseUrl: 'https://hunyuan.tencentcloudapi.com',
    config: {},
  },
  body: {},
  clientHeaders: {},
  ...over,
});

const recorded = (name: string): string => readFileSync(new URL(name, import.meta.url), 'utf8');
const eventsOf = (sse: string): SseEvent[] =>
  sse
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => ({ event: '', data: block.slice(6) }));

/** The request as Tencent's server would read it: method, path, headers (with the Host undici sends). */
const verify = (url: string, headers: Record<string, string>, body: string | Uint8Array) => {
  const parsed = new URL(url);
  return verifyTc3(
    { method: 'POST', path: parsed.pathname, headers: { ...headers, host: parsed.host } },
    Buffer.from(body),
    { secretId: SECRET_ID, secretKey: SECRET_KEY, service: 'hunyuan' },
  );
};

describe('Tencent Hunyuan adaptor', () => {
  beforeEach(() => vi.useFakeTimers({ now: NOW * 1000, toFake: ['Date'] }));
  afterEach(() => vi.useRealTimers());

  it('signs a ChatCompletions call with TC3-HMAC-SHA256 over content-type;host, as the documented example', () => {
    const body = {
      model: 'hunyuan-lite',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '你好' },
      ],
      temperature: 0.5,
      top_p: 0.9,
    };
    const request = tencentAdaptor.buildRequest(body, metaOf({ body }));
    expect(request.url).toBe('https://hunyuan.tencentcloudapi.com/');
    expect(JSON.parse(String(request.body))).toEqual({
      Model: 'hunyuan-lite',
      Messages: [
        { Role: 'system', Content: 'Be brief.' },
        { Role: 'user', Content: '你好' },
      ],
      Stream: false,
      TopP: 0.9,
      Temperature: 0.5,
    });
    const { authorization, ...rest } = request.headers;
    expect(rest).toEqual({
      'content-type': 'application/json',
      'x-tc-action': 'ChatCompletions',
      'x-tc-version': '2023-09-01',
      'x-tc-timestamp': String(NOW),
    });
    expect(authorization).toMatch(
      new RegExp(
        `^TC3-HMAC-SHA256 Credential=${SECRET_ID}/2024-05-08/hunyuan/tc3_request, SignedHeaders=content-type;host, Signature=[0-9a-f]{64}$`,
      ),
    );
    expect(verify(request.url, request.headers, request.body)).toBeUndefined();
    // The signature covers the body and the host: another body or host does not verify.
    expect(verify(request.url, request.headers, `${String(request.body)} `)).toBe('signature mismatch');
    expect(verify('https://proxy.example.com/', request.headers, request.body)).toBe('signature mismatch');
    expect(JSON.stringify(request)).not.toContain(SECRET_KEY);
  });

  it('signs with the host of the channel’s base URL, port included', () => {
    const meta = metaOf();
    const request = tencentAdaptor.buildRequest(
      { messages: [{ role: 'user', content: 'hi' }] },
      { ...meta, channel: { ...meta.channel, baseUrl: 'http://127.0.0.1:8123' } },
    );
    expect(request.url).toBe('http://127.0.0.1:8123/');
    expect(verify(request.url, request.headers, request.body)).toBeUndefined();
  });

  it('sends tools with Parameters as a JSON string, tool calls and results, images as Contents', () => {
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"x":1}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
      ],
      tools: [
        { type: 'function', function: { name: 'look', description: 'Look', parameters: { type: 'object' } } },
      ],
      tool_choice: { type: 'function', function: { name: 'look' } },
    };
    const request = tencentAdaptor.buildRequest(body, metaOf({ model: 'hunyuan-vision', stream: true }));
    expect(request.headers['accept']).toBe('text/event-stream');
    const tool = {
      Type: 'function',
      Function: { Name: 'look', Parameters: '{"type":"object"}', Description: 'Look' },
    };
    expect(JSON.parse(String(request.body))).toEqual({
      Model: 'hunyuan-vision',
      Messages: [
        {
          Role: 'user',
          Contents: [
            { Type: 'text', Text: 'What is this?' },
            { Type: 'image_url', ImageUrl: { Url: 'https://example.com/a.png' } },
          ],
        },
        {
          Role: 'assistant',
          Content: '',
          ToolCalls: [{ Id: 'call_1', Type: 'function', Function: { Name: 'look', Arguments: '{"x":1}' } }],
        },
        { Role: 'tool', Content: 'a cat', ToolCallId: 'call_1' },
      ],
      Stream: true,
      Tools: [tool],
      ToolChoice: 'custom',
      CustomTool: tool,
    });
  });

  it('reads the documented answer: Response.Choices and Response.Usage', () => {
    const parsed = tencentAdaptor.parseResponse(
      JSON.parse(recorded('tencent-response.recorded.json')),
      metaOf(),
    );
    expect(parsed.usage).toEqual({ prompt_tokens: 3, completion_tokens: 14, total_tokens: 17 });
    expect(parsed.body).toEqual({
      id: 'chatcmpl-e4d2b7d8-9d7a-4f0b-9a1e-5c1b7e3f2a10',
      object: 'chat.completion',
      created: 1715162426,
      model: 'hunyuan-lite',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: '您好！我是腾讯混元大模型，很高兴为您服务。' },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 14, total_tokens: 17 },
    });
  });

  it('answers Response.Error (sent with HTTP 200) as the client’s error at Tencent’s meaning, without the key', () => {
    const body = {
      Response: {
        Error: { Code: 'AuthFailure.SecretIdNotFound', Message: `The SecretId ${SECRET_ID} is not found.` },
        RequestId: 'r-1',
      },
    };
    const thrown = (() => {
      try {
        tencentAdaptor.parseResponse(body, metaOf());
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ status: 401, code: 'AuthFailure.SecretIdNotFound' });
    expect((thrown as AppError).message).toBe('The SecretId [redacted] is not found.');
    expect(tencentAdaptor.parseError(body)).toEqual({
      message: `The SecretId ${SECRET_ID} is not found.`,
      type: 'tencent_error',
      code: 'AuthFailure.SecretIdNotFound',
    });
  });

  it('translates the documented stream: Choices[].Delta, the running Usage, FinishReason at the end', () => {
    const translate = tencentAdaptor.translateStream(metaOf({ stream: true }));
    const steps = eventsOf(recorded('tencent-stream.recorded.sse')).map(translate);
    expect(steps[0]?.chunks[0]).toMatchObject({
      id: 'chatcmpl-d25aa0a4-6c8f-4b7e-8f3a-0e2f7c9b1d42',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { role: 'assistant', content: '您好' }, finish_reason: null }],
    });
    expect(steps.at(-1)?.chunks[0]).toMatchObject({ choices: [{ finish_reason: 'stop' }] });
    expect(steps.at(-1)?.usage).toEqual({ prompt_tokens: 3, completion_tokens: 14, total_tokens: 17 });
  });

  it('streams tool calls with their index', () => {
    const translate = tencentAdaptor.translateStream(metaOf({ stream: true }));
    const step = translate({
      event: '',
      data: JSON.stringify({
        Id: 'x',
        Choices: [
          {
            Delta: {
              Role: 'assistant',
              Content: '',
              ToolCalls: [
                { Id: 'call_9', Type: 'function', Index: 0, Function: { Name: 'look', Arguments: '{}' } },
              ],
            },
            FinishReason: 'tool_calls',
          },
        ],
      }),
    });
    expect(step.chunks[0]).toMatchObject({
      choices: [
        {
          delta: {
            tool_calls: [
              { index: 0, id: 'call_9', type: 'function', function: { name: 'look', arguments: '{}' } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('signs GetEmbedding and reads its Data and Usage', () => {
    const body = { model: 'hunyuan-embedding', input: 'hello' };
    const meta = metaOf({ mode: 'embeddings', path: '/v1/embeddings', model: 'hunyuan-embedding', body });
    const request = tencentAdaptor.buildRequest(body, meta);
    expect(request.headers['x-tc-action']).toBe('GetEmbedding');
    expect(JSON.parse(String(request.body))).toEqual({ Input: 'hello' });
    expect(verify(request.url, request.headers, request.body)).toBeUndefined();
    expect(JSON.parse(String(tencentAdaptor.buildRequest({ input: ['a', 'b'] }, meta).body))).toEqual({
      InputList: ['a', 'b'],
    });
    const parsed = tencentAdaptor.parseResponse(
      {
        Response: {
          Data: [{ Embedding: [0.1, 0.2], Index: 0, Object: 'embedding' }],
          Usage: { PromptTokens: 2, TotalTokens: 2 },
        },
      },
      meta,
    );
    expect(parsed.body).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
      model: 'hunyuan-embedding',
      usage: { prompt_tokens: 2, total_tokens: 2 },
    });
  });

  it('refuses a key that is not AppId|SecretId|SecretKey, without quoting it', () => {
    const meta = metaOf();
    const build = () =>
      tencentAdaptor.buildRequest(
        { messages: [{ role: 'user', content: 'hi' }] },
        { ...meta, channel: { ...meta.channel, key: 'sk-single-secret-key' } },
      );
    expect(build).toThrow(/AppId\|SecretId\|SecretKey/);
    expect(build).not.toThrow(/sk-single/);
  });
});
