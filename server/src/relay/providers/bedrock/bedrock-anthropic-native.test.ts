import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { verifySigV4 } from '../../../test-support/sigv4-verify.js';
import type { ChannelMeta, RelayRequestMeta, UpstreamRequest } from '../adaptor.js';
import { bedrockAdaptor } from './bedrock-adaptor.js';
import { bedrockAnthropicNative } from './bedrock-anthropic-native.js';

// AWS's documentation's example credentials.
const AK = 'AKIAIOSFODNN7EXAMPLE';
const SK = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

const channelOf = (overrides: Partial<ChannelMeta> = {}): ChannelMeta => ({
  id: 7,
  type: CHANNEL_TYPE.aws,
  key: `${AK}|${SK}|us-west-2`,
  baseUrl: '',
  config: {},
  ...overrides,
});

const metaOf = (
  model: string,
  stream: boolean,
  clientHeaders: Record<string, string> = {},
  channel = channelOf(),
): RelayRequestMeta => ({
  mode: 'chat',
  path: '/v1/messages',
  model,
  stream,
  channel,
  body: {},
  clientHeaders,
});

/** Built from the client's body and signed, as the relay does (pipeline/attempt.ts). */
const built = async (body: Record<string, unknown>, meta: RelayRequestMeta): Promise<UpstreamRequest> => {
  const request = bedrockAnthropicNative.buildRequest(
    body,
    new TextEncoder().encode(JSON.stringify(body)),
    meta,
  );
  return bedrockAdaptor.sign ? bedrockAdaptor.sign(request, meta) : request;
};

/** The request's signature checked as AWS checks it (test-support/sigv4-verify.ts, node:crypto). */
const verify = (request: UpstreamRequest, secret = SK) => {
  const url = new URL(request.url);
  return verifySigV4(
    {
      method: 'POST',
      path: url.pathname + url.search,
      headers: { ...request.headers, host: url.host },
      body: Buffer.from(request.body),
    },
    secret,
  );
};

/** A Messages body with what the hub would lose: thinking, cache_control, metadata, a server tool, a field nobody knows. */
const MESSAGES = {
  model: 'claude-3-7-sonnet-20250219',
  max_tokens: 2048,
  thinking: { type: 'enabled', budget_tokens: 1024 },
  system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
  messages: [
    {
      role: 'user',
      content: [
        {
          type: 'document',
          source: { type: 'text', media_type: 'text/plain', data: 'Paris is in France.' },
          citations: { enabled: true },
        },
        { type: 'text', text: 'Where is Paris? 你好 👋' },
      ],
    },
  ],
  tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }],
  metadata: { user_id: 'user-42' },
  stream: true,
  future_field: { x: 1 },
};

const SIGNED_HEADERS =
  /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=[0-9a-f]{64}$/;

describe('bedrockAnthropicNative: an Anthropic client on a Bedrock Claude model', () => {
  it('sends the body to InvokeModel untouched but for model, stream and anthropic_version, signed with SigV4', async () => {
    const request = await built({ ...MESSAGES, stream: false }, metaOf('claude-3-7-sonnet-20250219', false));
    expect(request.url).toBe(
      'https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke',
    );
    expect(request.body).toBe(
      '{"anthropic_version":"bedrock-2023-05-31","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},' +
        '"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}],' +
        '"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"Paris is in France."},"citations":{"enabled":true}},' +
        '{"type":"text","text":"Where is Paris? 你好 👋"}]}],' +
        '"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":2}],' +
        '"metadata":{"user_id":"user-42"},"future_field":{"x":1}}',
    );
    expect(request.headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json' });
    expect(Object.keys(request.headers).sort()).toEqual([
      'accept',
      'authorization',
      'content-type',
      'x-amz-content-sha256',
      'x-amz-date',
    ]);
    expect(SIGNED_HEADERS.exec(request.headers['authorization'] ?? '')?.[1]).toBe(
      'accept;content-type;host;x-amz-content-sha256;x-amz-date',
    );
    expect(verify(request)).toEqual({ ok: true, accessKeyId: AK, region: 'us-west-2', service: 'bedrock' });
    expect(verify(request, `${SK}x`).ok).toBe(false);
    expect(JSON.stringify(request)).not.toContain(SK);
  });

  it('streams through invoke-with-response-stream, asking for the event stream of JSON events', async () => {
    const request = await built(MESSAGES, metaOf('claude-3-7-sonnet-20250219', true));
    expect(request.url).toBe(
      'https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke-with-response-stream',
    );
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      accept: 'application/vnd.amazon.eventstream',
      'x-amzn-bedrock-accept': 'application/json',
    });
    const sent = JSON.parse(String(request.body)) as Record<string, unknown>;
    const { model: _model, stream: _stream, ...rest } = MESSAGES;
    expect(sent).toEqual({ anthropic_version: 'bedrock-2023-05-31', ...rest });
    expect(Object.keys(sent)[0]).toBe('anthropic_version');
    expect(verify(request)).toMatchObject({ ok: true });
  });

  it('moves the anthropic-beta header into the body’s anthropic_beta, as Bedrock reads betas', async () => {
    const request = await built(
      { model: 'x', max_tokens: 8, messages: [{ role: 'user', content: 'Hi' }] },
      metaOf('claude-sonnet-4-20250514', false, {
        'anthropic-beta': 'interleaved-thinking-2025-05-14, context-1m-2025-08-07,,',
        'anthropic-version': '2023-06-01',
      }),
    );
    expect(request.body).toBe(
      '{"anthropic_version":"bedrock-2023-05-31","anthropic_beta":["interleaved-thinking-2025-05-14","context-1m-2025-08-07"],' +
        '"max_tokens":8,"messages":[{"role":"user","content":"Hi"}]}',
    );
    // Neither header goes upstream: Bedrock knows betas by the body, and has one version of its own.
    expect(request.headers['anthropic-beta']).toBeUndefined();
    expect(request.headers['anthropic-version']).toBeUndefined();
    expect(verify(request)).toMatchObject({ ok: true });
  });

  it('keeps a body’s own anthropic_beta, and sets the one anthropic_version Bedrock takes', async () => {
    const request = await built(
      {
        anthropic_version: '2023-06-01',
        anthropic_beta: ['token-efficient-tools-2025-02-19'],
        model: 'x',
        max_tokens: 8,
        messages: [],
      },
      metaOf('us.anthropic.claude-3-7-sonnet-20250219-v1:0', false, { 'anthropic-beta': 'other-beta' }),
    );
    expect(request.url).toMatch(/\/model\/us\.anthropic\.claude-3-7-sonnet-20250219-v1%3A0\/invoke$/);
    expect(JSON.parse(String(request.body))).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      anthropic_beta: ['token-efficient-tools-2025-02-19'],
      max_tokens: 8,
      messages: [],
    });
  });

  it('carries a Bedrock API key as a Bearer token, in the region of the channel’s config', async () => {
    const meta = metaOf(
      'claude-3-5-haiku-20241022',
      false,
      {},
      channelOf({ key: 'ABSKQmVkcm9ja0FQSUtleS1example', config: { region: 'eu-central-1' } }),
    );
    const request = await built({ model: 'x', max_tokens: 8, messages: [] }, meta);
    expect(request.url).toBe(
      'https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke',
    );
    expect(request.headers['authorization']).toBe('Bearer ABSKQmVkcm9ja0FQSUtleS1example');
    expect(request.headers['x-amz-date']).toBeUndefined();
  });

  it('serves Claude models only (table names, Bedrock ids, inference profiles); the rest go through the hub', () => {
    for (const model of [
      'claude-3-5-sonnet-20241022',
      'anthropic.claude-3-haiku-20240307-v1:0',
      'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ])
      expect(bedrockAnthropicNative.serves?.(model)).toBe(true);
    for (const model of ['llama3-70b-8192', 'meta.llama3-8b-instruct-v1:0', 'amazon.nova-pro-v1:0'])
      expect(bedrockAnthropicNative.serves?.(model)).toBe(false);
    expect(bedrockAdaptor.native).toContain(bedrockAnthropicNative);
  });

  it('reads the usage of InvokeModel’s answer, cache reads and writes included', () => {
    const read = bedrockAnthropicNative.readAnswer({
      type: 'message',
      content: [
        { type: 'thinking', thinking: 'Hmm.', signature: 'sig' },
        { type: 'text', text: 'Paris.' },
      ],
      usage: {
        input_tokens: 10,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 20,
        output_tokens: 7,
      },
    });
    expect(read.text).toBe('Hmm.Paris.');
    expect(read.usage).toEqual({
      prompt_tokens: 130,
      completion_tokens: 7,
      total_tokens: 137,
      prompt_tokens_details: { cached_tokens: 100, cache_creation_tokens: 20 },
    });
  });
});
