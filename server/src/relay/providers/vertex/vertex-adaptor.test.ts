import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta } from '../../../test-support/stream-replay.js';
import type { ChannelMeta, RelayRequestMeta } from '../adaptor.js';
import { vertexAdaptor } from './vertex-adaptor.js';
import { vertexAnthropicNative, vertexGeminiNative } from './vertex-native.js';

const ADC = JSON.stringify({
  type: 'service_account',
  project_id: 'adc-project',
  private_key_id: 'a1b2c3',
  private_key: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
  client_email: 'relay@adc-project.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
});
const TOKEN = 'ya29.a0AfB_byC-access-token';

const meta = (
  overrides: Partial<Omit<RelayRequestMeta, 'channel'>> = {},
  channel: Partial<ChannelMeta> = {},
): RelayRequestMeta =>
  fixtureMeta(
    {
      type: CHANNEL_TYPE.vertexAi,
      baseUrl: '',
      key: '',
      config: { region: 'us-central1', vertex_ai_project_id: 'PROJECT_ID', vertex_ai_adc: ADC },
      ...channel,
    },
    { model: 'gemini-2.0-flash-001', token: TOKEN, ...overrides },
  );

const HELLO = { messages: [{ role: 'user', content: 'Write a story about a magic backpack.' }] };

describe('vertex adaptor: Gemini requests (Google’s generateContent examples)', () => {
  it('pins the documented request: URL, Bearer token, body by the Gemini conversion', () => {
    const request = vertexAdaptor.buildRequest({ ...HELLO, temperature: 0.4 }, meta());
    expect(request.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/PROJECT_ID/locations/us-central1/publishers/google/models/gemini-2.0-flash-001:generateContent',
    );
    expect(request.headers).toEqual({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toMatchObject({
      contents: [{ role: 'user', parts: [{ text: 'Write a story about a magic backpack.' }] }],
      generationConfig: { temperature: 0.4 },
    });
    // Every category turned off but the civic-integrity one, which Vertex AI has deprecated.
    expect((JSON.parse(String(request.body)) as { safetySettings: unknown }).safetySettings).toEqual(
      ['HARASSMENT', 'HATE_SPEECH', 'SEXUALLY_EXPLICIT', 'DANGEROUS_CONTENT'].map((name) => ({
        category: `HARM_CATEGORY_${name}`,
        threshold: 'BLOCK_NONE',
      })),
    );
  });

  it('streams with streamGenerateContent?alt=sse', () => {
    const request = vertexAdaptor.buildRequest({ ...HELLO, stream: true }, meta({ stream: true }));
    expect(request.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/PROJECT_ID/locations/us-central1/publishers/google/models/gemini-2.0-flash-001:streamGenerateContent?alt=sse',
    );
    expect(request.headers['accept']).toBe('text/event-stream');
  });

  it('calls the global endpoint for region global, and the multi-region hosts for us and eu', () => {
    const at = (region: string) =>
      vertexAdaptor.buildRequest(
        HELLO,
        meta(
          { model: 'gemini-2.5-flash' },
          {
            config: { region, vertex_ai_project_id: 'p', vertex_ai_adc: ADC },
          },
        ),
      ).url;
    expect(at('global')).toBe(
      'https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:generateContent',
    );
    expect(at('eu')).toMatch(
      /^https:\/\/aiplatform\.eu\.rep\.googleapis\.com\/v1\/projects\/p\/locations\/eu\//,
    );
  });

  it('puts the channel’s base URL in the host’s place', () => {
    const request = vertexAdaptor.buildRequest(HELLO, meta({}, { baseUrl: 'http://127.0.0.1:8080/vertex' }));
    expect(request.url).toBe(
      'http://127.0.0.1:8080/vertex/v1/projects/PROJECT_ID/locations/us-central1/publishers/google/models/gemini-2.0-flash-001:generateContent',
    );
  });
});

describe('vertex adaptor: Claude requests (Anthropic’s “Claude on Vertex AI” examples)', () => {
  const claude = { model: 'claude-3-5-sonnet-v2@20241022' };
  it('pins rawPredict: the model in the path (its @ kept), anthropic_version in the body, no model', () => {
    const request = vertexAdaptor.buildRequest(
      { model: 'x', max_tokens: 1024, messages: [{ role: 'user', content: 'Hey Claude!' }] },
      meta(claude, {
        config: { region: 'us-east5', vertex_ai_project_id: 'MY_PROJECT_ID', vertex_ai_adc: ADC },
      }),
    );
    expect(request.url).toBe(
      'https://us-east5-aiplatform.googleapis.com/v1/projects/MY_PROJECT_ID/locations/us-east5/publishers/anthropic/models/claude-3-5-sonnet-v2@20241022:rawPredict',
    );
    expect(request.headers).toEqual({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hey Claude!' }] }],
      max_tokens: 1024,
    });
  });

  it('streams with streamRawPredict, the client’s anthropic-beta passed on', () => {
    const request = vertexAdaptor.buildRequest(
      { ...HELLO, stream: true },
      meta({ ...claude, stream: true, clientHeaders: { 'anthropic-beta': 'output-128k-2025-02-19' } }),
    );
    expect(request.url).toMatch(
      /\/publishers\/anthropic\/models\/claude-3-5-sonnet-v2@20241022:streamRawPredict$/,
    );
    expect(request.headers).toMatchObject({
      'anthropic-beta': 'output-128k-2025-02-19',
      accept: 'text/event-stream',
    });
    expect(JSON.parse(String(request.body))).toMatchObject({ stream: true, max_tokens: 4096 });
  });

  it('reads a rawPredict answer and errors in Anthropic’s and in Google’s shape', () => {
    const parsed = vertexAdaptor.parseResponse(
      {
        id: 'msg_vrtx_0162rhgehxa9rvJM5BSVLZ9j',
        type: 'message',
        role: 'assistant',
        model: 'claude-3-5-sonnet-v2-20241022',
        content: [{ type: 'text', text: 'Hello!' }],
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 3 },
      },
      meta(claude),
    );
    expect(parsed.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 });
    expect(parsed.body).toMatchObject({ choices: [{ message: { content: 'Hello!' } }] });
    expect(
      vertexAdaptor.parseError({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    ).toEqual({ message: 'Overloaded', type: 'overloaded_error', code: 'overloaded_error' });
    expect(
      vertexAdaptor.parseError({
        error: {
          code: 429,
          message: 'Quota exceeded for aiplatform.googleapis.com',
          status: 'RESOURCE_EXHAUSTED',
        },
      }),
    ).toEqual({
      message: 'Quota exceeded for aiplatform.googleapis.com',
      type: 'RESOURCE_EXHAUSTED',
      code: 'RESOURCE_EXHAUSTED',
    });
  });
});

describe('vertex adaptor: the channel’s config', () => {
  it('reads one-api’s composed key region|project|ADC when the config lacks them', () => {
    const request = vertexAdaptor.buildRequest(
      HELLO,
      meta({}, { key: `europe-west4|key-project|${ADC}`, config: {} }),
    );
    expect(request.url).toContain(
      'https://europe-west4-aiplatform.googleapis.com/v1/projects/key-project/locations/europe-west4/',
    );
  });

  it('takes the service account’s project_id when no project is set', () => {
    const request = vertexAdaptor.buildRequest(
      HELLO,
      meta({}, { config: { region: 'us-central1', vertex_ai_adc: ADC } }),
    );
    expect(request.url).toContain('/projects/adc-project/');
  });

  it('refuses a bad config with an error naming the field, never quoting the key file', () => {
    const refusal = (config: Record<string, string>): string => {
      try {
        vertexAdaptor.token!.cacheKey(meta({}, { config }).channel);
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    const { client_email: _email, ...noEmail } = JSON.parse(ADC) as Record<string, string>;
    expect(refusal({ region: 'us-central1', vertex_ai_adc: JSON.stringify(noEmail) })).toBe(
      "the Vertex AI channel's config.vertex_ai_adc lacks client_email (a string, not empty)",
    );
    const broken = ADC.slice(0, 90);
    const message = refusal({ region: 'us-central1', vertex_ai_adc: broken });
    expect(message).toContain('config.vertex_ai_adc');
    expect(message).not.toContain('PRIVATE KEY');
    expect(refusal({ region: '', vertex_ai_adc: ADC })).toContain('config.region is empty');
    expect(refusal({ region: 'us-central1' })).toContain(
      'config.vertex_ai_adc (the service account JSON) is empty',
    );
    expect(refusal({ region: 'us-central1', vertex_ai_adc: ADC })).toBe('accepted');
  });
});

describe('vertex adaptor: Anthropic and Gemini clients passed through', () => {
  const raw = (body: unknown) => new TextEncoder().encode(JSON.stringify(body));

  it('sends an Anthropic body with anthropic_version added and model removed, nothing else changed', () => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'Hi' }],
      stream: true,
    };
    const request = vertexAnthropicNative.buildRequest(
      body,
      raw(body),
      meta(
        { model: 'claude-sonnet-4-5@20250929', stream: true },
        { config: { region: 'global', vertex_ai_adc: ADC } },
      ),
    );
    expect(request.url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/adc-project/locations/global/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict',
    );
    const { model: _model, ...rest } = body;
    expect(JSON.parse(String(request.body))).toEqual({ anthropic_version: 'vertex-2023-10-16', ...rest });
    expect(request.headers['authorization']).toBe(`Bearer ${TOKEN}`);
  });

  it('keeps the anthropic_version an Anthropic client put in its body', () => {
    const body = { model: 'm', anthropic_version: 'vertex-2025-01-01', max_tokens: 8, messages: [] };
    const request = vertexAnthropicNative.buildRequest(
      body,
      raw(body),
      meta({ model: 'claude-opus-4@20250514' }),
    );
    expect(JSON.parse(String(request.body))).toMatchObject({ anthropic_version: 'vertex-2025-01-01' });
  });

  it('sends a Gemini body as it came, to the Google publisher’s model', () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], tools: [{ googleSearch: {} }] };
    const bytes = raw(body);
    const request = vertexGeminiNative.buildRequest(body, bytes, meta({ model: 'gemini-2.5-pro' }));
    expect(request.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/PROJECT_ID/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent',
    );
    expect(request.body).toBe(bytes);
  });

  it('speaks each client format for its own family of models only', () => {
    expect(vertexAnthropicNative.serves?.('claude-3-5-haiku@20241022')).toBe(true);
    expect(vertexAnthropicNative.serves?.('gemini-2.5-pro')).toBe(false);
    expect(vertexGeminiNative.serves?.('gemini-2.5-pro')).toBe(true);
    expect(vertexGeminiNative.serves?.('claude-3-5-haiku@20241022')).toBe(false);
  });
});
