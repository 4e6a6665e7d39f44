import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { Readable } from 'node:stream';
import { toFile } from 'openai';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startTap, type Tap } from '../../test-support/recording-tap.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import {
  chatBody,
  consumeLogs,
  gpt4oCost,
  relayPost,
  userCounters,
} from '../../test-support/relay-helpers.js';
import { countTextTokens } from '../metering/token-counter.js';

const TRANSCRIPT = 'Imagine the wildest idea that you have ever had.';
const OPENAI_MODELS = [
  'gpt-4o',
  'gpt-3.5-turbo-instruct',
  'text-embedding-3-large',
  'text-embedding-3-small',
  'text-moderation-stable',
  'dall-e-2',
  'dall-e-3',
  'tts-1',
  'whisper-1',
].join(',');

describe('relay modes: embeddings, completions, moderations, images, audio, Azure, body limit', () => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  const taps: Tap[] = [];

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture('sqlite', { MAX_REQUEST_BODY_MB: '1' });
    await fixture.test.sluice.services.options.update(
      'GroupRatio',
      JSON.stringify({ default: 1, vip: 1, svip: 1, x100: 100, half: 0.5 }),
    );
    await fixture.channel({
      name: 'openai',
      base_url: upstream.url,
      models: OPENAI_MODELS,
      group: 'default,x100,half',
    });
  });
  afterAll(async () => {
    await fixture?.close();
    await Promise.all(taps.map((tap) => tap.close()));
    await upstream?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  const idle = () => fixture.test.sluice.idle();
  const logsAfterIdle = async (user: RelayUser) => {
    await idle();
    return consumeLogs(db(), user.userId);
  };

  describe('embeddings', () => {
    it('bills the upstream’s usage at the embedding model’s ratio (and the group ratio)', async () => {
      const user = await fixture.user({ group: 'x100' });
      const result = await user.sdk.embeddings.create({
        model: 'text-embedding-3-large',
        input: 'hello',
        encoding_format: 'float',
      });
      expect(result.data[0]?.embedding).toEqual([0.0023064255, -0.009327292, -0.0028842222]);
      expect(upstream.requests.at(-1)).toMatchObject({ path: '/v1/embeddings' });
      const [log] = await logsAfterIdle(user);
      // The double reports 8 prompt tokens ('hello' counts 1 locally): ceil(8 × 0.065 × 100) = 52.
      expect(log).toMatchObject({
        model_name: 'text-embedding-3-large',
        prompt_tokens: 8,
        completion_tokens: 0,
        quota: 52,
      });
    });

    it('serves /v1/engines/:model/embeddings with the model from the path', async () => {
      const user = await fixture.user({ group: 'x100' });
      const answer = await relayPost(
        fixture,
        `sk-${user.key}`,
        '/v1/engines/text-embedding-3-small/embeddings',
        {
          input: 'hello',
        },
      );
      expect(answer.status).toBe(200);
      expect(upstream.requests.at(-1)?.path).toBe('/v1/embeddings');
      // The upstream is told the model the path named (its body had none).
      expect(upstream.requests.at(-1)?.json).toEqual({ model: 'text-embedding-3-small', input: 'hello' });
      const [log] = await logsAfterIdle(user);
      // ceil(8 × 0.01 × 100) = 8
      expect(log).toMatchObject({ model_name: 'text-embedding-3-small', quota: 8 });
    });
  });

  it('relays completions and bills the completion ratio', async () => {
    const user = await fixture.user({ quota: 1_000_000 });
    const completion = await user.sdk.completions.create({
      model: 'gpt-3.5-turbo-instruct',
      prompt: 'Say this is a test',
    });
    expect(completion.choices[0]?.text).toBe(upstream.reply);
    expect(upstream.requests.at(-1)).toMatchObject({ path: '/v1/completions' });
    const [log] = await logsAfterIdle(user);
    // ceil((9 + 12 × 4/3) × 0.75) = ceil(18.75) = 19
    expect(log).toMatchObject({ model_name: 'gpt-3.5-turbo-instruct', quota: 19, prompt_tokens: 9 });
    expect((await userCounters(db(), user.userId)).quota).toBe(1_000_000 - 19);
  });

  it('routes a moderation without a model as text-moderation-stable and bills its input', async () => {
    const user = await fixture.user({ group: 'x100' });
    const answer = await relayPost(fixture, `sk-${user.key}`, '/v1/moderations', {
      input: 'I want to hug them.',
    });
    expect(answer.status).toBe(200);
    expect(answer.json['results']).toEqual([{ flagged: false, categories: {}, category_scores: {} }]);
    expect(upstream.requests.at(-1)?.path).toBe('/v1/moderations');
    const [log] = await logsAfterIdle(user);
    const tokens = countTextTokens('I want to hug them.', 'text-moderation-stable');
    expect(tokens).toBeGreaterThan(0);
    // no usage from the upstream: the local count of the input, ratio 0.1 × group 100
    expect(log).toMatchObject({
      model_name: 'text-moderation-stable',
      prompt_tokens: tokens,
      completion_tokens: 0,
      quota: tokens * 10,
    });
  });

  it('bills images as trunc(ratio × group × size factor × 1000) × n', async () => {
    const user = await fixture.user({ quota: 1_000_000 });
    const tall = await user.sdk.images.generate({ model: 'dall-e-3', prompt: 'a cat', size: '1024x1792' });
    expect(tall.data?.[0]?.url).toBe('https://example.invalid/image.png');
    expect(upstream.requests.at(-1)).toMatchObject({ path: '/v1/images/generations' });
    await user.sdk.images.generate({ model: 'dall-e-2', prompt: 'a cat', size: '512x512', n: 3 });
    await user.sdk.images.generate({
      model: 'dall-e-3',
      prompt: 'a cat',
      size: '1792x1024',
      quality: 'hd',
    });
    const half = await fixture.user({ quota: 1_000_000, group: 'half' });
    await half.sdk.images.generate({ model: 'dall-e-3', prompt: 'a cat', size: '1024x1792' });
    const logs = await logsAfterIdle(user);
    expect(logs.map((log) => [log.model_name, log.quota, log.prompt_tokens, log.completion_tokens])).toEqual([
      ['dall-e-3', 40_000, 0, 0], // 20 × 1 × 2 × 1000
      ['dall-e-2', 33_750, 0, 0], // trunc(10 × 1.125 × 1000) × 3
      ['dall-e-3', 60_000, 0, 0], // 20 × 2 (1792x1024) × 1.5 (hd)
    ]);
    expect((await userCounters(db(), user.userId)).quota).toBe(1_000_000 - 40_000 - 33_750 - 60_000);
    expect((await consumeLogs(db(), half.userId)).map((log) => log.quota)).toEqual([20_000]);
  });

  it('refuses an image request its model cannot draw with a 400, nothing sent upstream or billed', async () => {
    const user = await fixture.user({ quota: 1_000_000 });
    const before = upstream.requests.length;
    const answer = await relayPost(fixture, `sk-${user.key}`, '/v1/images/generations', {
      model: 'dall-e-3',
      prompt: 'a cat',
      n: 2,
    });
    expect(answer.status).toBe(400);
    expect(answer.json.error).toMatchObject({ code: 'n_not_within_range' });
    expect(upstream.requests).toHaveLength(before);
    expect(await logsAfterIdle(user)).toHaveLength(0);
    // The rules are those of the model the channel maps to, as in one-api.
    await fixture.channel({
      name: 'drawing',
      base_url: upstream.url,
      models: 'house-draw',
      group: 'drawing',
      model_mapping: '{"house-draw":"dall-e-3"}',
    });
    const artist = await fixture.user({ quota: 100_000, group: 'drawing' });
    const mapped = await relayPost(fixture, `sk-${artist.key}`, '/v1/images/generations', {
      model: 'house-draw',
      prompt: 'a cat',
      size: '512x512',
    });
    expect(mapped.status).toBe(400);
    expect(mapped.json.error).toMatchObject({ code: 'size_not_supported' });
    expect(upstream.requests).toHaveLength(before);
    // The reservation goes back through the settlements (written a few milliseconds later).
    await fixture.test.sluice.idle();
    expect((await userCounters(db(), artist.userId)).quota).toBe(100_000);
  });

  it('passes speech bytes through and bills the input’s length in bytes × ratio', async () => {
    const user = await fixture.user({ quota: 1_000_000 });
    const input = 'héllo wörld'; // 11 characters, 13 bytes
    const speech = await user.sdk.audio.speech.create({ model: 'tts-1', voice: 'alloy', input });
    expect(speech.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await speech.arrayBuffer()).toString('latin1')).toBe('ID3fake-mp3-bytes');
    expect(upstream.requests.at(-1)).toMatchObject({ path: '/v1/audio/speech' });
    expect(upstream.requests.at(-1)?.json?.['input']).toBe(input);
    const [log] = await logsAfterIdle(user);
    expect(log).toMatchObject({ model_name: 'tts-1', quota: Math.ceil(13 * 7.5) });
    expect((await userCounters(db(), user.userId)).quota).toBe(1_000_000 - 98);
  });

  it('streams speech audio back as it comes, billed once it all came', async () => {
    const user = await fixture.user({ quota: 1_000_000 });
    let open = () => {};
    upstream.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    try {
      const answer = await fetch(`${fixture.server.url}/v1/audio/speech`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'hello' }),
      });
      expect(answer.status).toBe(200);
      const reader = answer.body!.getReader();
      // The first bytes arrive while the upstream still holds the rest.
      const first = await reader.read();
      expect(Buffer.from(first.value ?? []).toString('latin1')).toBe('ID3fake-');
      open();
      let rest = '';
      for (let part = await reader.read(); !part.done; part = await reader.read())
        rest += Buffer.from(part.value).toString('latin1');
      expect(rest).toBe('mp3-bytes');
    } finally {
      upstream.gate = undefined;
      open();
    }
    const [log] = await logsAfterIdle(user);
    expect(log).toMatchObject({ model_name: 'tts-1', quota: Math.ceil(5 * 7.5) });
  });

  it('cuts the client off and bills nothing when the speech upstream breaks off midway', async () => {
    // Below 100 × the price: the price is reserved before the call, and must come back.
    const user = await fixture.user({ quota: 3000 });
    upstream.breakNext(1);
    const answer = await fetch(`${fixture.server.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'hello' }),
    });
    expect(answer.status).toBe(200);
    await expect(answer.arrayBuffer()).rejects.toThrow();
    expect(await logsAfterIdle(user)).toHaveLength(0);
    expect((await userCounters(db(), user.userId)).quota).toBe(3000);
    // Broken off before its first byte: an answer the client can read, still nothing billed.
    upstream.breakNext(1, false);
    const early = await fetch(`${fixture.server.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-1', voice: 'alloy', input: 'hello' }),
    });
    expect(early.status).toBe(502);
    const failed = (await early.json()) as { error: { code: string; message: string } };
    expect(failed.error.code).toBe('bad_response');
    expect(failed.error.message).toMatch(/^the upstream broke off before its answer \(request id: \w+\)$/);
    expect(await logsAfterIdle(user)).toHaveLength(0);
    expect((await userCounters(db(), user.userId)).quota).toBe(3000);
  });

  it('forwards a transcription’s multipart body with its boundary and bills transcript tokens × ratio', async () => {
    const user = await fixture.user({ quota: 1_000_000 });
    const audio = Buffer.from('RIFF\u0000\u0001fake-wave-bytes', 'latin1');
    const transcription = await user.sdk.audio.transcriptions.create({
      file: await toFile(audio, 'speech.wav', { type: 'audio/wav' }),
      model: 'whisper-1',
    });
    expect(transcription.text).toBe(TRANSCRIPT);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/audio/transcriptions');
    const contentType = String(sent.headers['content-type']);
    const boundary = /^multipart\/form-data; boundary=(.+)$/.exec(contentType)?.[1];
    expect(boundary).toBeTruthy();
    const raw = sent.body.toString('latin1');
    expect(raw.startsWith(`--${boundary}`)).toBe(true);
    expect(raw).toContain(audio.toString('latin1'));
    expect(raw).toContain('filename="speech.wav"');
    expect(raw).toContain('whisper-1');
    expect(sent.headers['authorization']).toBe('Bearer sk-upstream-secret-key-000');

    const translation = await user.sdk.audio.translations.create({
      file: await toFile(audio, 'speech.wav', { type: 'audio/wav' }),
      model: 'whisper-1',
    });
    expect(translation.text).toBe(TRANSCRIPT);
    expect(upstream.requests.at(-1)?.path).toBe('/v1/audio/translations');

    const tokens = countTextTokens(TRANSCRIPT, 'whisper-1');
    expect(tokens).toBeGreaterThan(5);
    const logs = await logsAfterIdle(user);
    expect(logs.map((log) => [log.model_name, log.completion_tokens, log.quota])).toEqual([
      ['whisper-1', tokens, tokens * 15],
      ['whisper-1', tokens, tokens * 15],
    ]);
  });

  describe('Azure channel (type 3)', () => {
    const azureGroup = async (name: string, settings: Record<string, unknown>) => {
      const tap = await startTap(upstream.url);
      taps.push(tap);
      const id = await fixture.channel({
        name,
        type: CHANNEL_TYPE.azure,
        key: 'azure-api-key-0123456789',
        base_url: tap.url,
        models: 'gpt-4o,gpt-3.5-turbo',
        group: name,
        ...settings,
      });
      const user = await fixture.user({ group: name });
      return { tap, id, user };
    };

    it('calls /openai/deployments/<model without dots>/… with api-version and the api-key header', async () => {
      const { tap, id, user } = await azureGroup('azure1', { config: '{"api_version":"2024-06-01"}' });
      const completion = await user.sdk.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Hello!' }],
      });
      expect(completion.choices[0]?.message.content).toBe(upstream.reply);
      await user.sdk.chat.completions.create({
        model: 'gpt-3.5-turbo',
        messages: [{ role: 'user', content: 'Hello!' }],
      });
      const stream = await user.sdk.chat.completions.create({
        model: 'gpt-4o',
        stream: true,
        messages: [{ role: 'user', content: 'Hello!' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(upstream.reply);

      expect(tap.requests.map((request) => request.path)).toEqual([
        '/openai/deployments/gpt-4o/chat/completions',
        '/openai/deployments/gpt-35-turbo/chat/completions',
        '/openai/deployments/gpt-4o/chat/completions',
      ]);
      // 2024-06-01 refuses stream_options: the stream goes as the client sent it, counted locally.
      expect(JSON.parse(tap.requests[2]?.body.toString() ?? '')).not.toHaveProperty('stream_options');
      for (const request of tap.requests) {
        expect(request.query.get('api-version')).toBe('2024-06-01');
        expect(request.headers['api-key']).toBe('azure-api-key-0123456789');
        expect(request.headers['authorization']).toBeUndefined();
      }
      const logs = await logsAfterIdle(user);
      expect(logs.map((log) => [log.channel_id, log.model_name])).toEqual([
        [id, 'gpt-4o'],
        [id, 'gpt-3.5-turbo'],
        [id, 'gpt-4o'],
      ]);
      expect(logs[0]?.quota).toBe(gpt4oCost(9, 12));
      expect(Number(logs[2]?.completion_tokens)).toBeGreaterThan(0);
    });

    it('takes the API version from the legacy `other` field', async () => {
      const { tap, user } = await azureGroup('azure2', { other: '2023-05-15' });
      expect(
        (await relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o'))).status,
      ).toBe(200);
      expect(tap.requests[0]?.query.get('api-version')).toBe('2023-05-15');
    });

    it('defaults the API version to 2024-03-01-preview', async () => {
      const { tap, user } = await azureGroup('azure3', {});
      expect(
        (await relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o'))).status,
      ).toBe(200);
      expect(tap.requests[0]?.url).toBe(
        '/openai/deployments/gpt-4o/chat/completions?api-version=2024-03-01-preview',
      );
    });
  });

  describe('request body limit (MAX_REQUEST_BODY_MB=1)', () => {
    const hugeChat = () =>
      Buffer.from(
        JSON.stringify({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'x'.repeat(2 * 1024 * 1024) }],
        }),
      );

    /**
     * A refused upload leaves its connection half-read; an agent of its own keeps that socket out of
     * the pool the other tests share.
     */
    const postOnce = async (key: string, body: Buffer | Readable) => {
      const agent = new Agent();
      try {
        const response = await request(`${fixture.server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
          body,
          dispatcher: agent,
        });
        return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
      } finally {
        await agent.destroy();
      }
    };

    it('answers 413 OpenAI-shaped to a 2 MiB body and bills nothing', async () => {
      const user = await fixture.user({ quota: 1_000_000 });
      const before = upstream.requests.length;
      const answer = await postOnce(user.key, hugeChat());
      expect(answer.status).toBe(413);
      expect(answer.json['error']).toMatchObject({
        type: 'invalid_request_error',
        code: 'request_too_large',
        message: expect.stringContaining('larger than 1048576 bytes'),
      });
      expect(upstream.requests.length).toBe(before);
      await idle();
      expect(await userCounters(db(), user.userId)).toMatchObject({ quota: 1_000_000, request_count: 0 });
      expect(await consumeLogs(db(), user.userId)).toHaveLength(0);
    });

    it('reads a body that arrives in pieces after the headers', async () => {
      const user = await fixture.user({ quota: 1_000_000 });
      const bytes = Buffer.from(JSON.stringify(chatBody('gpt-4o')));
      const slowly = Readable.from(
        (async function* () {
          yield bytes.subarray(0, 10);
          await new Promise((resolve) => setTimeout(resolve, 50));
          yield bytes.subarray(10);
        })(),
      );
      const answer = await postOnce(user.key, slowly);
      expect(answer.status).toBe(200);
      expect(upstream.requests.at(-1)?.json).toEqual(chatBody('gpt-4o'));
    });

    it('answers 413 to a chunked 2 MiB body without a Content-Length', async () => {
      const user = await fixture.user({ quota: 1_000_000 });
      const before = upstream.requests.length;
      const bytes = hugeChat();
      const chunks: Buffer[] = [];
      for (let offset = 0; offset < bytes.length; offset += 64 * 1024)
        chunks.push(bytes.subarray(offset, offset + 64 * 1024));
      const answer = await postOnce(user.key, Readable.from(chunks));
      expect(answer.status).toBe(413);
      expect(answer.json['error']).toMatchObject({ code: 'request_too_large' });
      expect(upstream.requests.length).toBe(before);
      await idle();
      expect((await userCounters(db(), user.userId)).quota).toBe(1_000_000);
    });
  });

  describe('regression: the 413 for an oversized body closes the connection cleanly', () => {
    // relay-routes.ts answers the bodyLimit refusal with `Connection: keep-alive` before the body was
    // read; the server then drops that socket, so a keep-alive client's next request on it fails with
    // "other side closed". Answering the 413 with `Connection: close` makes the client reconnect.
    it('serves the next request on the same keep-alive connection after a 413', async () => {
      const user = await fixture.user({ quota: 1_000_000 });
      const agent = new Agent({ connections: 1 });
      try {
        const headers = { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' };
        const refused = await request(`${fixture.server.url}/v1/chat/completions`, {
          method: 'POST',
          headers,
          body: Buffer.alloc(2 * 1024 * 1024, 'x'),
          dispatcher: agent,
        });
        await refused.body.text();
        expect(refused.statusCode).toBe(413);
        const next = await request(`${fixture.server.url}/v1/chat/completions`, {
          method: 'POST',
          headers,
          body: JSON.stringify(chatBody('gpt-4o')),
          dispatcher: agent,
        }).then(
          async (response) => ({ status: response.statusCode, text: await response.body.text() }),
          (error: unknown) => ({ status: 0, text: String(error) }),
        );
        expect(next.status, next.text).toBe(200);
      } finally {
        await agent.destroy();
      }
    });
  });

  describe('regression: images are checked against the balance before the call', () => {
    // one-api (relay/controller/image.go) refuses with 403 insufficient_user_quota when
    // userQuota − trunc(ratio × size factor × 1000) × n < 0; Sluice reserves 0 for images
    // (pricing.ts reservationFor) so pipeline.ts only refuses a quota ≤ 0, and the user overdraws.
    it('refuses an image the user cannot pay for with 403 and calls no upstream', async () => {
      const user = await fixture.user({ quota: 1_000 });
      const before = upstream.requests.length;
      const answer = await relayPost(fixture, `sk-${user.key}`, '/v1/images/generations', {
        model: 'dall-e-3',
        prompt: 'a cat',
        size: '1024x1024',
      });
      expect(answer.status).toBe(403);
      expect(answer.json.error?.code).toBe('insufficient_user_quota');
      expect(upstream.requests.length).toBe(before);
      await idle();
      expect((await userCounters(db(), user.userId)).quota).toBe(1_000);
    });
  });
});
