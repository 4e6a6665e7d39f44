import { LOG_TYPE } from '@sluice/contract/statuses';
import { gzipSync } from 'node:zlib';
import { NotFoundError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { streamAndLeave } from '../../test-support/relay-helpers.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

/** gpt-4o: model ratio 2.5, completion ratio 4 (one-api's defaults). */
const gpt4oCost = (prompt: number, completion: number) => Math.ceil((prompt + completion * 4) * 2.5);

describe('relay: chat completions through the openai SDK', () => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture('sqlite');
    await fixture.channel({ name: 'main', base_url: upstream.url, models: 'gpt-4o,gpt-3.5-turbo' });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  const db = () => fixture.test.sluice.database.db;
  const logsOf = (userId: number) =>
    db()
      .selectFrom('logs')
      .selectAll()
      .where('user_id', '=', userId)
      .where('type', '=', LOG_TYPE.consume)
      .execute();
  const quotaOf = async (userId: number) =>
    await db()
      .selectFrom('users')
      .select(['quota', 'used_quota', 'request_count'])
      .where('id', '=', userId)
      .executeTakeFirstOrThrow();

  it('relays a non-stream chat and bills one-api’s formula exactly, with one log row', async () => {
    const user = await fixture.user({ quota: 1_000_000 });
    upstream.usage = { prompt_tokens: 9, completion_tokens: 12 };
    const completion = await user.sdk.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    expect(completion.choices[0]?.message.content).toBe(upstream.reply);
    expect(completion.usage?.total_tokens).toBe(21);
    await fixture.test.sluice.idle();
    const cost = gpt4oCost(9, 12);
    expect(await quotaOf(user.userId)).toEqual({
      quota: 1_000_000 - cost,
      used_quota: cost,
      request_count: 1,
    });
    const logs = await logsOf(user.userId);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      model_name: 'gpt-4o',
      quota: cost,
      prompt_tokens: 9,
      completion_tokens: 12,
      token_name: 'test key',
    });
    expect(logs[0]?.request_id).toMatch(/^\d{31}$/);
    const sent = upstream.requests.at(-1)!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-upstream-secret-key-000');
  });

  it('streams as it arrives, asks the upstream for usage, and strips it when the client did not ask', async () => {
    const user = await fixture.user();
    upstream.usage = { prompt_tokens: 9, completion_tokens: 12 };
    const stream = await user.sdk.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    let text = '';
    let sawUsage = false;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) sawUsage = true;
    }
    expect(text).toBe(upstream.reply);
    expect(sawUsage).toBe(false);
    expect(upstream.requests.at(-1)?.json?.['stream_options']).toEqual({ include_usage: true });
    await fixture.test.sluice.idle();
    const logs = await logsOf(user.userId);
    expect(logs[0]).toMatchObject({ quota: gpt4oCost(9, 12), prompt_tokens: 9, completion_tokens: 12 });
    expect(Boolean(logs[0]?.is_stream)).toBe(true);
  });

  it('sends each event on as it comes: the first reaches the client while the upstream holds the rest', async () => {
    const user = await fixture.user();
    let release: () => void = () => undefined;
    upstream.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const { data: stream, response } = await user.sdk.chat.completions
        .create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      const seen: string[] = [];
      for await (const chunk of stream) {
        // Nothing past the first event exists upstream until it is released here.
        if (seen.length === 0) release();
        seen.push(chunk.choices[0]?.delta.content ?? '');
      }
      expect(seen.join('')).toBe(upstream.reply);
    } finally {
      release();
      upstream.gate = undefined;
    }
  });

  it('answers a stream that reached it whole, end included, as one body with its length', async () => {
    const user = await fixture.user();
    upstream.streamInOneWrite = true;
    try {
      const { data: stream, response } = await user.sdk.chat.completions
        .create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(upstream.reply);
      expect(response.headers.get('transfer-encoding')).toBeNull();
      expect(Number(response.headers.get('content-length'))).toBeGreaterThan(upstream.reply.length);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
    } finally {
      upstream.streamInOneWrite = false;
    }
  });

  it('passes the usage chunk on when the client asked for it', async () => {
    const user = await fixture.user();
    const stream = await user.sdk.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    const usages = [];
    for await (const chunk of stream) if (chunk.usage) usages.push(chunk.usage);
    // With what Sluice bills for it, in dollars (usage.cost, as OpenRouter tells it).
    expect(usages).toEqual([
      { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21, cost: expect.any(Number) as number },
    ]);
  });

  it('counts locally when the upstream gives no usage', async () => {
    const user = await fixture.user();
    upstream.usage = undefined;
    upstream.reply = 'one two three four';
    try {
      await user.sdk.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'count' }],
      });
      await fixture.test.sluice.idle();
      const [log] = await logsOf(user.userId);
      expect(log?.completion_tokens).toBe(4);
      expect(log?.prompt_tokens).toBeGreaterThan(0);
      expect(log?.quota).toBe(gpt4oCost(log!.prompt_tokens, 4));
    } finally {
      upstream.usage = { prompt_tokens: 9, completion_tokens: 12 };
      upstream.reply = 'Hello there, how may I assist you today?';
    }
  });

  it('bills a client that disconnects mid-stream for what was generated, and aborts the upstream', async () => {
    const user = await fixture.user();
    upstream.chunkDelayMs = 40;
    upstream.reply = Array.from({ length: 40 }, (_, index) => `word${index} `).join('');
    upstream.aborted.value = false;
    try {
      const chunks = await streamAndLeave(user, 'gpt-4o');
      expect(chunks).toBeLessThan(20);
      await expect.poll(() => upstream.aborted.value, { timeout: 5000 }).toBe(true);
      await expect.poll(async () => (await logsOf(user.userId)).length, { timeout: 5000 }).toBe(1);
      const [log] = await logsOf(user.userId);
      expect(log?.completion_tokens).toBeGreaterThan(0);
      expect(log?.completion_tokens).toBeLessThan(40);
      expect(log?.quota).toBeGreaterThan(0);
    } finally {
      upstream.chunkDelayMs = 0;
      upstream.reply = 'Hello there, how may I assist you today?';
    }
  });

  it('answers OpenAI-shaped errors with the right status and bills nothing', async () => {
    const user = await fixture.user({ quota: 500_000 });
    const post = (body: string, key = user.key) =>
      fetch(`${fixture.server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
        body,
      });
    const malformed = await post('{"model":');
    expect(malformed.status).toBe(400);
    const malformedBody = (await malformed.json()) as { error: { message: string; type: string } };
    expect(malformedBody.error.message).toMatch(/^the body must be valid JSON \(request id: \d+\)$/);
    expect((await post(JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }))).status).toBe(400);
    expect((await post(JSON.stringify({ model: 'gpt-4o', messages: 'hi' }))).status).toBe(400);
    expect((await post(JSON.stringify({ model: 'gpt-4o', messages: [] }))).status).toBe(400);
    expect(
      (
        await post(
          JSON.stringify({ model: 'gpt-4o', stream: 'yes', messages: [{ role: 'user', content: 'x' }] }),
        )
      ).status,
    ).toBe(400);
    const unknownKey = await post(
      JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
      'nope',
    );
    expect(unknownKey.status).toBe(401);
    const noChannel = await post(
      JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }),
    );
    expect(noChannel.status).toBe(503);
    expect(((await noChannel.json()) as { error: { message: string } }).error.message).toContain(
      'no available channel for model no-such-model under group default',
    );
    const noKey = await fetch(`${fixture.server.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(noKey.status).toBe(401);
    expect((await quotaOf(user.userId)).quota).toBe(500_000);
  });

  it('passes an upstream error on with its status, without the channel key or base URL', async () => {
    const user = await fixture.user({ quota: 500_000 });
    upstream.failNext(1, 500, `boom at ${upstream.url} with key sk-upstream-secret-key-000`);
    const response = await fetch(`${fixture.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain('boom at');
    expect(text).not.toContain('sk-upstream-secret-key-000');
    expect(text).not.toContain(upstream.url);
    await fixture.test.sluice.idle();
    expect((await quotaOf(user.userId)).quota).toBe(500_000);
    expect(await logsOf(user.userId)).toHaveLength(0);
  });

  it('lists the models of the key and answers 501 for what Sluice does not relay', async () => {
    const user = await fixture.user();
    const models = await user.sdk.models.list();
    expect(models.data.map((model) => model.id)).toEqual(['gpt-3.5-turbo', 'gpt-4o']);
    expect((await user.sdk.models.retrieve('gpt-4o')).owned_by).toBe('openai');
    const files = await fetch(`${fixture.server.url}/v1/files`, {
      headers: { authorization: `Bearer sk-${user.key}` },
    });
    expect(files.status).toBe(501);
    expect(await files.json()).toMatchObject({ error: { code: 'api_not_implemented' } });
    for (const [method, path] of [
      ['GET', '/v1/chat/completions'],
      ['DELETE', '/v1/chat/completions/chatcmpl-123'],
      ['POST', '/v1/vector_stores'],
      ['GET', '/v1/vector_stores/vs_1/files'],
      ['POST', '/v1/uploads/upload_1/parts'],
      ['GET', '/v1/organization/usage/completions'],
      ['DELETE', '/v1/models/ft:gpt-4o:me'],
    ] as const) {
      const answer = await fetch(`${fixture.server.url}${path}`, {
        method,
        headers: { authorization: `Bearer sk-${user.key}` },
      });
      expect([method, path, answer.status]).toEqual([method, path, 501]);
      const body = (await answer.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('api_not_implemented');
      expect(body.error.message).toMatch(/^API not implemented \(request id: \w+\)$/);
    }
    // A path OpenAI does not have is not found; a 501 path still wants a key.
    expect((await fetch(`${fixture.server.url}/v1/no-such-thing`)).status).toBe(404);
    expect((await fetch(`${fixture.server.url}/v1/vector_stores`)).status).toBe(401);
  });

  it('bills a model without a ratio at the default, and says so in its log row', async () => {
    await fixture.channel({
      name: 'unpriced',
      base_url: upstream.url,
      models: 'house-unpriced',
      group: 'unpriced',
    });
    const user = await fixture.user({ group: 'unpriced', quota: 1_000_000 });
    await user.sdk.chat.completions.create({
      model: 'house-unpriced',
      messages: [{ role: 'user', content: 'x' }],
    });
    await fixture.test.sluice.idle();
    const [log] = await logsOf(user.userId);
    // one-api's default ratio 30, completion ratio 1: (9 + 12) × 30.
    expect(log).toMatchObject({ model_name: 'house-unpriced', quota: 630 });
    expect(log?.content).toBe(
      'model ratio 30.00 (not set for this model: the default), group ratio 1.00, completion ratio 1.00',
    );
  });

  it('retrieves only a model the key may use, custom ones included; others are not found', async () => {
    await fixture.channel({
      name: 'custom',
      base_url: upstream.url,
      models: 'house-model,gpt-4o',
      group: 'retrieve',
    });
    const user = await fixture.user({ group: 'retrieve' });
    expect(await user.sdk.models.retrieve('house-model')).toMatchObject({
      id: 'house-model',
      owned_by: 'custom',
    });
    expect(await user.sdk.models.retrieve('gpt-4o')).toMatchObject({ id: 'gpt-4o', owned_by: 'openai' });
    const missing = await user.sdk.models.retrieve('gpt-3.5-turbo').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect((missing as Error).message).toContain("The model 'gpt-3.5-turbo' does not exist (request id: ");
    // A key limited to some models retrieves only those.
    const limited = await fixture.user({ group: 'retrieve', token: { models: 'gpt-4o' } });
    expect((await limited.sdk.models.retrieve('gpt-4o')).id).toBe('gpt-4o');
    await expect(limited.sdk.models.retrieve('house-model')).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('relay: gzip-encoded request bodies', () => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture('sqlite', { MAX_REQUEST_BODY_MB: '1' });
    await fixture.channel({ name: 'gzip', base_url: upstream.url, models: 'gpt-4o' });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  const send = (key: string, body: Uint8Array) =>
    fetch(`${fixture.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer sk-${key}`,
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      },
      body,
    });

  it('inflates a gzip body, refuses a broken one with 400 and a bomb with 413', async () => {
    const user = await fixture.user();
    const chat = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'zipped' }] });
    const ok = await send(user.key, gzipSync(chat));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-oneapi-request-id')).toMatch(/^\d{31}$/);
    expect(upstream.requests.at(-1)?.json?.['messages']).toEqual([{ role: 'user', content: 'zipped' }]);
    expect((await send(user.key, new TextEncoder().encode('not gzip'))).status).toBe(400);
    const bomb = gzipSync(
      JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'a'.repeat(3 * 1024 * 1024) }] }),
    );
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect((await send(user.key, bomb)).status).toBe(413);
    const stream = await fetch(`${fixture.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(stream.headers.get('x-oneapi-request-id')).toMatch(/^\d{31}$/);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(await stream.text()).toMatch(/data: \[DONE\]\n\n$/);
  });
});
