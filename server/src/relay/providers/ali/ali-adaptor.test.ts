import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import type { RelayMode, RelayRequestMeta } from '../adaptor.js';
import { aliAdaptor } from './ali-adaptor.js';

const KEY = 'sk-dashscope-0123456789abcdef';
const metaOf = (
  model: string,
  mode: RelayMode = 'chat',
  stream = false,
  config: Record<string, string> = {},
): RelayRequestMeta => ({
  mode,
  path: mode === 'embeddings' ? '/v1/embeddings' : '/v1/chat/completions',
  model,
  stream,
  channel: { id: 1, type: CHANNEL_TYPE.ali, key: KEY, baseUrl: 'https://dashscope.aliyuncs.com', config },
  body: {},
  clientHeaders: {},
});

describe('Alibaba DashScope adaptor', () => {
  it('sends a chat as text-generation with result_format message (documented example)', () => {
    const request = aliAdaptor.buildRequest(
      {
        model: 'qwen-plus',
        top_p: 1,
        messages: [
          { role: 'system', content: 'You are a helpful assistant.' },
          { role: 'user', content: '你是谁？' },
        ],
      },
      metaOf('qwen-plus'),
    );
    expect(request.url).toBe(
      'https://dashscope.aliyuncs.com/api/v1/services/aigc/text-generation/generation',
    );
    expect(request.headers).toEqual({ authorization: `Bearer ${KEY}`, 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'qwen-plus',
      input: {
        messages: [
          { role: 'system', content: 'You are a helpful assistant.' },
          { role: 'user', content: '你是谁？' },
        ],
      },
      parameters: { result_format: 'message', top_p: 0.9999 },
    });
  });

  it('streams with X-DashScope-SSE and incremental_output; -internet searches; the plugin header from config', () => {
    const request = aliAdaptor.buildRequest(
      { model: 'qwen-max-internet', messages: [{ role: 'user', content: 'hi' }] },
      metaOf('qwen-max-internet', 'chat', true, { plugin: '{"pdf_extracter":{}}' }),
    );
    expect(request.headers).toEqual({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'x-dashscope-plugin': '{"pdf_extracter":{}}',
      'x-dashscope-sse': 'enable',
      accept: 'text/event-stream',
    });
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'qwen-max',
      input: { messages: [{ role: 'user', content: 'hi' }] },
      parameters: { result_format: 'message', incremental_output: true, enable_search: true },
    });
  });

  it('sends embeddings as input.texts and reads output.embeddings', () => {
    const meta = metaOf('text-embedding-v1', 'embeddings');
    const request = aliAdaptor.buildRequest({ model: 'text-embedding-v1', input: ['风急天高猿啸哀'] }, meta);
    expect(request.url).toBe(
      'https://dashscope.aliyuncs.com/api/v1/services/embeddings/text-embedding/text-embedding',
    );
    expect(JSON.parse(String(request.body))).toEqual({
      model: 'text-embedding-v1',
      input: { texts: ['风急天高猿啸哀'] },
      parameters: { text_type: 'query' },
    });
    const parsed = aliAdaptor.parseResponse(
      {
        output: { embeddings: [{ text_index: 0, embedding: [0.25, -0.5] }] },
        usage: { total_tokens: 7 },
        request_id: 'r1',
      },
      meta,
    );
    expect(parsed.body).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5] }],
      model: 'text-embedding-v1',
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
  });

  it('reads an answer with tool calls, and DashScope’s error', () => {
    const parsed = aliAdaptor.parseResponse(
      {
        output: {
          choices: [
            {
              finish_reason: 'tool_calls',
              message: {
                role: 'assistant',
                content: '',
                tool_calls: [
                  {
                    id: 'call_1',
                    type: 'function',
                    function: { name: 'get_weather', arguments: '{"location":"杭州"}' },
                  },
                ],
              },
            },
          ],
        },
        usage: { input_tokens: 20, output_tokens: 10 },
        request_id: 'r2',
      },
      metaOf('qwen-plus'),
    );
    expect(parsed.body).toMatchObject({
      choices: [
        {
          finish_reason: 'tool_calls',
          message: { content: null, tool_calls: [{ id: 'call_1', function: { name: 'get_weather' } }] },
        },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
    });
    expect(
      aliAdaptor.parseError({ code: 'InvalidApiKey', message: 'Invalid API-key provided.', request_id: 'x' }),
    ).toEqual({
      message: 'Invalid API-key provided.',
      type: 'ali_error',
      code: 'InvalidApiKey',
    });
  });
});
