import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Crypto from 'node:crypto';
import { relayPieces, type Relayed } from '../../../test-support/adaptor-conformance-support.js';
import {
  claudeChunkFrames,
  converseFrames,
  readBedrockRecording,
  type RecordedFrame,
} from '../../../test-support/bedrock-frames.js';
import { verifySigV4 } from '../../../test-support/sigv4-verify.js';
import type { ChannelMeta, RelayRequestMeta, UpstreamRequest } from '../adaptor.js';
import { bedrockAdaptor } from './bedrock-adaptor.js';
import { signBedrockRequest } from './bedrock-signing.js';

// Converse answers carry no id: Sluice makes one at random, fixed here so every cut answers the same bytes.
vi.mock('node:crypto', async (original) => ({
  ...(await original<typeof Crypto>()),
  randomUUID: () => '00000000-0000-4000-8000-000000000000',
}));

// AWS's documentation's example credentials.
const AK = 'AKIAIOSFODNN7EXAMPLE';
const SK = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';

const channelOf = (overrides: Partial<ChannelMeta> = {}): ChannelMeta => ({
  id: 3,
  type: CHANNEL_TYPE.aws,
  key: `${AK}|${SK}|us-west-2`,
  baseUrl: '',
  config: {},
  ...overrides,
});

const metaOf = (model: string, stream: boolean, channel = channelOf()): RelayRequestMeta => ({
  mode: 'chat',
  path: '/v1/chat/completions',
  model,
  stream,
  channel,
  body: {},
  clientHeaders: {},
});

/** Builds and signs as the relay does; the signature is then verified as AWS would. */
const signed = async (body: Record<string, unknown>, meta: RelayRequestMeta): Promise<UpstreamRequest> => {
  const built = bedrockAdaptor.buildRequest(body, meta);
  return bedrockAdaptor.sign ? bedrockAdaptor.sign(built, meta) : built;
};

const verify = (request: UpstreamRequest, secret = SK) => {
  const url = new URL(request.url);
  return verifySigV4(
    {
      method: 'POST',
      path: url.pathname + url.search,
      headers: {
        ...Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k.toLowerCase(), v])),
        host: url.host,
      },
      body: Buffer.from(request.body),
    },
    secret,
  );
};

const CHAT = {
  model: 'x',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hello' },
  ],
  max_tokens: 300,
};

describe('bedrockAdaptor requests', () => {
  it('sends a Claude model to InvokeModel with Anthropic’s body, signed with SigV4 (the key ak|sk|region)', async () => {
    const request = await signed(CHAT, metaOf('claude-3-5-sonnet-20241022', false));
    expect(request.url).toBe(
      'https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-3-5-sonnet-20241022-v2%3A0/invoke',
    );
    expect(JSON.parse(String(request.body))).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      system: 'Be brief.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
      max_tokens: 300,
    });
    expect(request.headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json' });
    expect(request.headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
    );
    expect(verify(request)).toEqual({ ok: true, accessKeyId: AK, region: 'us-west-2', service: 'bedrock' });
    expect(verify(request, `${SK}x`).ok).toBe(false);
    expect(JSON.stringify(request)).not.toContain(SK);
  });

  it('signs a fixed date as AWS computes it (the signer’s date is the one signed)', async () => {
    const request = await signBedrockRequest(
      {
        url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/meta.llama3-8b-instruct-v1%3A0/converse',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      },
      { kind: 'sigv4', accessKeyId: AK, secretAccessKey: SK, region: 'us-east-1' },
      new Date('2024-05-01T12:00:00Z'),
    );
    expect(request.headers['x-amz-date']).toBe('20240501T120000Z');
    expect(request.headers['x-amz-content-sha256']).toBe(
      '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    );
    expect(verify(request)).toMatchObject({ ok: true, region: 'us-east-1' });
  });

  it('takes config ak/sk/region over the key, signs a session token, streams Claude through invoke-with-response-stream', async () => {
    const channel = channelOf({
      key: 'unused|unused|eu-west-1',
      config: { ak: AK, sk: SK, region: 'eu-central-1' },
    });
    const request = await signed(CHAT, metaOf('anthropic.claude-3-haiku-20240307-v1:0', true, channel));
    expect(request.url).toBe(
      'https://bedrock-runtime.eu-central-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke-with-response-stream',
    );
    expect(request.headers).toMatchObject({
      accept: 'application/vnd.amazon.eventstream',
      'x-amzn-bedrock-accept': 'application/json',
    });
    expect(verify(request)).toMatchObject({ ok: true, region: 'eu-central-1' });
    const session = await signed(
      CHAT,
      metaOf('claude-2.1', false, channelOf({ key: `${AK}|${SK}|us-east-1|FwoGZXIvYXdzEXAMPLE` })),
    );
    expect(session.headers['x-amz-security-token']).toBe('FwoGZXIvYXdzEXAMPLE');
    expect(session.headers['authorization']).toContain('x-amz-security-token');
    expect(verify(session)).toMatchObject({ ok: true });
  });

  it('sends every other family to Converse: messages, system, inferenceConfig, toolConfig, tool results', async () => {
    const body = {
      model: 'x',
      messages: [
        { role: 'system', content: 'You are a DJ.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is the top song on WZPZ?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'tooluse_1',
              type: 'function',
              function: { name: 'top_song', arguments: '{"sign":"WZPZ"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'tooluse_1', content: 'Elemental Hotel' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'top_song',
            description: 'Get the most popular song played on a radio station.',
            parameters: { type: 'object', properties: { sign: { type: 'string' } }, required: ['sign'] },
          },
        },
      ],
      tool_choice: 'required',
      temperature: 0.5,
      top_p: 0.9,
      max_tokens: 512,
      stop: ['END'],
    };
    const request = await signed(body, metaOf('llama3-70b-8192', false));
    expect(request.url).toBe(
      'https://bedrock-runtime.us-west-2.amazonaws.com/model/meta.llama3-70b-instruct-v1%3A0/converse',
    );
    expect(JSON.parse(String(request.body))).toEqual({
      messages: [
        {
          role: 'user',
          content: [
            { text: 'What is the top song on WZPZ?' },
            { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
          ],
        },
        {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'top_song', input: { sign: 'WZPZ' } } }],
        },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: 'Elemental Hotel' }] } }],
        },
      ],
      system: [{ text: 'You are a DJ.' }],
      inferenceConfig: { maxTokens: 512, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'top_song',
              description: 'Get the most popular song played on a radio station.',
              inputSchema: {
                json: { type: 'object', properties: { sign: { type: 'string' } }, required: ['sign'] },
              },
            },
          },
        ],
        toolChoice: { any: {} },
      },
    });
    expect(verify(request)).toMatchObject({ ok: true });
    const stream = await signed(CHAT, metaOf('amazon.nova-pro-v1:0', true));
    expect(stream.url).toBe(
      'https://bedrock-runtime.us-west-2.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse-stream',
    );
  });

  it('keeps the channel’s base URL (signed for its host), and sends a Bedrock API key as a Bearer token unsigned', async () => {
    const local = await signed(
      CHAT,
      metaOf('llama3-8b-8192', false, channelOf({ baseUrl: 'http://127.0.0.1:8123/prefix' })),
    );
    expect(local.url).toBe('http://127.0.0.1:8123/prefix/model/meta.llama3-8b-instruct-v1%3A0/converse');
    expect(verify(local)).toMatchObject({ ok: true });
    const keyed = await signed(
      CHAT,
      metaOf('llama3-8b-8192', false, channelOf({ key: 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxl' })),
    );
    expect(keyed.headers['authorization']).toBe('Bearer ABSKQmVkcm9ja0FQSUtleS1leGFtcGxl');
    expect(keyed.headers['x-amz-date']).toBeUndefined();
    expect(keyed.url.startsWith('https://bedrock-runtime.us-east-1.amazonaws.com/')).toBe(true);
  });

  it('refuses a key that is no access key pair, and a region that is no region', () => {
    expect(() =>
      bedrockAdaptor.buildRequest(CHAT, metaOf('claude-2.1', false, channelOf({ key: '|secret|us-east-1' }))),
    ).toThrow(/ak\|sk\|region/);
    expect(() =>
      bedrockAdaptor.buildRequest(
        CHAT,
        metaOf('claude-2.1', false, channelOf({ key: `${AK}|${SK}|evil.com/x` })),
      ),
    ).toThrow(/region/);
  });
});

describe('bedrockAdaptor answers', () => {
  it('reads a Converse answer (AWS’s documented example) with its usage', () => {
    const parsed = bedrockAdaptor.parseResponse(
      readBedrockRecording('bedrock-converse-response.recorded.json'),
      metaOf('llama3-70b-8192', false),
    );
    expect(parsed.usage).toEqual({ prompt_tokens: 125, completion_tokens: 60, total_tokens: 185 });
    expect(parsed.body).toMatchObject({
      object: 'chat.completion',
      model: 'llama3-70b-8192',
      choices: [
        {
          message: {
            role: 'assistant',
            content: 'The most popular song on WZPZ is Elemental Hotel by 8 Storey Hike.',
          },
          finish_reason: 'stop',
        },
      ],
    });
  });

  it('reads a Converse tool use, and cache reads and writes into prompt_tokens', () => {
    const parsed = bedrockAdaptor.parseResponse(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              {
                toolUse: {
                  toolUseId: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
                  name: 'top_song',
                  input: { sign: 'WZPZ' },
                },
              },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: {
          inputTokens: 10,
          outputTokens: 5,
          totalTokens: 45,
          cacheReadInputTokens: 20,
          cacheWriteInputTokens: 10,
        },
      },
      metaOf('amazon.nova-lite-v1:0', false),
    );
    expect(parsed.usage).toEqual({
      prompt_tokens: 40,
      completion_tokens: 5,
      total_tokens: 45,
      prompt_tokens_details: { cached_tokens: 20, cache_creation_tokens: 10 },
    });
    expect(parsed.body).toMatchObject({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              {
                id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
                type: 'function',
                function: { name: 'top_song', arguments: '{"sign":"WZPZ"}' },
              },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('reads a Claude InvokeModel answer as Anthropic’s message', () => {
    const parsed = bedrockAdaptor.parseResponse(
      {
        id: 'msg_bdrk_01',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: 'Hi!' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 12, output_tokens: 3 },
      },
      metaOf('claude-3-haiku-20240307', false),
    );
    expect(parsed.usage).toEqual({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    expect(parsed.body).toMatchObject({
      id: 'chatcmpl-msg_bdrk_01',
      choices: [{ message: { content: 'Hi!' } }],
    });
  });

  it('reads Bedrock’s errors: {message}, {Message}, a __type', () => {
    expect(bedrockAdaptor.parseError({ message: 'The provided model identifier is invalid.' })).toEqual({
      message: 'The provided model identifier is invalid.',
      type: 'upstream_error',
      code: 'upstream_error',
    });
    expect(
      bedrockAdaptor.parseError({ Message: 'User: arn:aws:iam::1:user/x is not authorized' })?.message,
    ).toContain('not authorized');
    expect(
      bedrockAdaptor.parseError({ __type: 'com.amazon.coral.validate#ValidationException', message: 'bad' }),
    ).toMatchObject({ type: 'ValidationException', code: 'ValidationException' });
  });
});

/** Every cut of the bytes in two (every byte boundary), relayed; each must equal the whole. */
const everyCut = async (bytes: Buffer, meta: RelayRequestMeta): Promise<Relayed> => {
  const whole = await relayPieces(bedrockAdaptor, meta, [bytes], true);
  for (let at = 1; at < bytes.length; at += 1)
    expect(
      await relayPieces(bedrockAdaptor, meta, [bytes.subarray(0, at), bytes.subarray(at)], true),
      `cut at ${at}`,
    ).toEqual(whole);
  return whole;
};

const chunksOf = (out: string): Record<string, unknown>[] =>
  out
    .split('\n\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);

describe('bedrockAdaptor streams', () => {
  // Chunks carry `created`: one clock for every cut.
  const clock = vi.spyOn(Date, 'now');
  beforeAll(() => clock.mockReturnValue(1_750_000_000_000));
  afterAll(() => clock.mockRestore());

  it('translates a ConverseStream with a tool call, cut at every byte', async () => {
    const bytes = converseFrames(
      readBedrockRecording('bedrock-converse-tools-stream.recorded.json') as RecordedFrame[],
    );
    const relayed = await everyCut(bytes, metaOf('llama3-70b-8192', true));
    expect(relayed.outcomes[0]?.usage).toEqual({
      prompt_tokens: 375,
      completion_tokens: 58,
      total_tokens: 433,
    });
    const chunks = chunksOf(relayed.out);
    expect(
      chunks.map((chunk) => (chunk['choices'] as { delta: unknown; finish_reason: unknown }[])[0]),
    ).toEqual([
      expect.objectContaining({ delta: { role: 'assistant', content: '' } }),
      expect.objectContaining({ delta: { content: '让我查一下。' } }),
      expect.objectContaining({
        delta: {
          tool_calls: [
            {
              index: 0,
              id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
              type: 'function',
              function: { name: 'top_song', arguments: '' },
            },
          ],
        },
      }),
      expect.objectContaining({
        delta: { tool_calls: [{ index: 0, function: { arguments: '{"sign": "WZ' } }] },
      }),
      expect.objectContaining({ delta: { tool_calls: [{ index: 0, function: { arguments: 'PZ"}' } }] } }),
      expect.objectContaining({ delta: {}, finish_reason: 'tool_calls' }),
      undefined,
    ]);
    expect(relayed.out.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('translates InvokeModelWithResponseStream’s chunks (base64 Anthropic events), cut at every byte', async () => {
    const bytes = claudeChunkFrames(readBedrockRecording('bedrock-claude-stream.recorded.json') as unknown[]);
    const relayed = await everyCut(bytes, metaOf('claude-3-5-sonnet-20241022', true));
    expect(relayed.outcomes[0]).toEqual({
      usage: { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 },
      text: 'Hello，世界 🌍',
      aborted: false,
    });
    expect(chunksOf(relayed.out)[0]).toMatchObject({ id: 'chatcmpl-msg_bdrk_01XFDUDYJgAACzvnptvVoYEL' });
  });

  it('ends a stream on an exception frame with its message, and refuses one that opens with it', async () => {
    const broken = converseFrames([
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }],
      [
        'throttlingException',
        { message: 'Too many requests, please wait before trying again.' },
        'exception',
      ],
    ]);
    const relayed = await relayPieces(bedrockAdaptor, metaOf('llama3-8b-8192', true), [broken], true);
    expect(relayed.out).toContain('"message":"Too many requests, please wait before trying again."');
    // The provider's error is the stream's last word: no [DONE] that would make the answer look complete.
    expect(relayed.out).not.toContain('[DONE]');
    expect(relayed.out.trimEnd().split('\n\n').at(-1)).toContain('Too many requests');
  });

  it('answers a malformed frame (a bad CRC) or a cut frame as a malformed stream, not as text', async () => {
    const bytes = converseFrames(
      readBedrockRecording('bedrock-converse-stream.recorded.json') as RecordedFrame[],
    );
    const corrupt = Buffer.from(bytes);
    corrupt[30] = (corrupt[30] ?? 0) ^ 0xff;
    const bad = await relayPieces(bedrockAdaptor, metaOf('llama3-8b-8192', true), [corrupt], true);
    expect(bad.out).not.toContain('Llama');
    const cut = await relayPieces(
      bedrockAdaptor,
      metaOf('llama3-8b-8192', true),
      [bytes.subarray(0, bytes.length - 3)],
      true,
    );
    expect(cut.out).toContain('malformed event stream');
    expect(cut.out).not.toContain('[DONE]');
    expect(cut.out.trimEnd().split('\n\n').at(-1)).toContain('malformed event stream');
  });
});
