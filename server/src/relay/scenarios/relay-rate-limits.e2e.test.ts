import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeLogs, tokenCounters, userCounters } from '../../test-support/relay-helpers.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { testDialects } from '../../test-support/test-databases.js';

const MODEL = 'gpt-4o';

/** A route of a client format, with its body and where it takes the key. */
interface RouteCase {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly headers: (key: string) => Record<string, string>;
  /** The client format's error, as its own SDK reads it. */
  readonly error: (body: Record<string, unknown>) => unknown;
}

const bearer = (key: string) => ({ authorization: `Bearer sk-${key}` });
const openAiError = (body: Record<string, unknown>) =>
  (body['error'] as { code?: unknown } | undefined)?.code;

const ROUTES: Readonly<Record<string, RouteCase>> = {
  chat: {
    path: '/v1/chat/completions',
    body: { model: MODEL, messages: [{ role: 'user', content: 'Hello!' }] },
    headers: bearer,
    error: openAiError,
  },
  completions: {
    path: '/v1/completions',
    body: { model: MODEL, prompt: 'Hello!' },
    headers: bearer,
    error: openAiError,
  },
  embeddings: {
    path: '/v1/embeddings',
    body: { model: MODEL, input: 'Hello!' },
    headers: bearer,
    error: openAiError,
  },
  responses: {
    path: '/v1/responses',
    body: { model: MODEL, input: 'Hello!' },
    headers: bearer,
    error: openAiError,
  },
  messages: {
    path: '/v1/messages',
    body: { model: MODEL, max_tokens: 64, messages: [{ role: 'user', content: 'Hello!' }] },
    headers: (key) => ({ 'x-api-key': `sk-${key}`, 'anthropic-version': '2023-06-01' }),
    error: (body) => body['type'] === 'error' && (body['error'] as { type?: unknown } | undefined)?.type,
  },
  gemini: {
    path: `/v1beta/models/${MODEL}:generateContent`,
    body: { contents: [{ role: 'user', parts: [{ text: 'Hello!' }] }] },
    headers: (key) => ({ 'x-goog-api-key': `sk-${key}` }),
    error: (body) => (body['error'] as { status?: unknown } | undefined)?.status,
  },
};

/** The error each client format answers a refusal with, in its own words. */
const REFUSED_AS: Readonly<Record<string, unknown>> = {
  chat: 'rate_limit_exceeded',
  completions: 'rate_limit_exceeded',
  embeddings: 'rate_limit_exceeded',
  responses: 'rate_limit_exceeded',
  messages: 'rate_limit_error',
  gemini: 'RESOURCE_EXHAUSTED',
};

describe.each(testDialects())('rate limits on the relay (%s, one instance, no Redis)', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;

  const send = async (user: RelayUser, route = 'chat', extra: Record<string, unknown> = {}) => {
    const spec = ROUTES[route];
    if (!spec) throw new Error(route);
    const response = await fetch(`${fixture.server.url}${spec.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...spec.headers(user.key) },
      body: JSON.stringify({ ...spec.body, ...extra }),
    });
    const text = await response.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // a stream
    }
    return { status: response.status, headers: response.headers, body, text, error: spec.error(body) };
  };
  /** What the user's quota pools hold in reservation rows. */
  const reserved = async (userId: number) =>
    (
      await fixture.test.sluice.database.db
        .selectFrom('sluice_reservations')
        .select('quota')
        .where('user_id', '=', userId)
        .execute()
    ).reduce((sum, row) => sum + Number(row.quota), 0);
  /**
   * The user's counters, their quota counted with what their quota pools hold (an idle pool gives its
   * slice back at any moment: the sum is what the relay has not spent).
   */
  const books = async (userId: number) => {
    const counters = await userCounters(fixture.test.sluice.database.db, userId);
    return { ...counters, quota: counters.quota + (await reserved(userId)) };
  };
  const limitedUser = async (
    limits: { rpm_limit?: number; tpm_limit?: number; concurrency_limit?: number },
    group?: string,
  ) => fixture.user({ ...(group ? { group } : {}), token: limits });

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'limited', base_url: upstream.url, models: MODEL, group: 'default,vip' });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  it('refuses the (n+1)th request of a minute on every route with 429, the headers, its format’s error, and no cost', async () => {
    const db = fixture.test.sluice.database.db;
    for (const route of Object.keys(ROUTES)) {
      const user = await limitedUser({ rpm_limit: 2 });
      const first = await send(user, route);
      expect(first.status, route).toBe(200);
      expect(first.headers.get('x-ratelimit-limit-requests'), route).toBe('2');
      expect(first.headers.get('x-ratelimit-remaining-requests'), route).toBe('1');
      expect(first.headers.get('x-ratelimit-reset-requests'), route).toMatch(/^(\d+m)?\d+(ms|s)$/);
      expect((await send(user, route)).status, route).toBe(200);
      await fixture.test.sluice.idle();
      const [userBefore, tokenBefore, logsBefore, sent] = [
        await books(user.userId),
        await tokenCounters(db, user.tokenId),
        (await consumeLogs(db, user.userId)).length,
        upstream.requests.length,
      ];

      const refused = await send(user, route);
      expect(refused.status, route).toBe(429);
      expect(refused.error, route).toBe(REFUSED_AS[route]);
      expect(Number(refused.headers.get('retry-after')), route).toBeGreaterThanOrEqual(1);
      // A minute and at most the second the oldest request came in (windows of one-second buckets).
      expect(Number(refused.headers.get('retry-after')), route).toBeLessThanOrEqual(61);
      expect(refused.headers.get('x-ratelimit-limit-requests'), route).toBe('2');
      expect(refused.headers.get('x-ratelimit-remaining-requests'), route).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset-requests'), route).toMatch(/^(\d+m)?\d+(ms|s)$/);
      await fixture.test.sluice.idle();
      expect(upstream.requests.length, route).toBe(sent);
      expect(await books(user.userId), route).toEqual(userBefore);
      expect(await tokenCounters(db, user.tokenId), route).toEqual(tokenBefore);
      expect(await consumeLogs(db, user.userId), route).toHaveLength(logsBefore);
    }
  });

  it('counts TPM on the estimated prompt, then on the usage billed', async () => {
    // The double answers 9 prompt + 200 completion tokens: 209 billed a request.
    upstream.usage = { prompt_tokens: 9, completion_tokens: 200 };
    const user = await limitedUser({ tpm_limit: 100 });
    const first = await send(user);
    upstream.usage = { prompt_tokens: 9, completion_tokens: 12 };
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('100');
    // Admitted on its estimate (the tokens of "Hello!" and the message's overhead).
    const estimated = 100 - Number(first.headers.get('x-ratelimit-remaining-tokens'));
    expect(estimated).toBeGreaterThan(0);
    expect(estimated).toBeLessThan(50);
    // Settled at 209: refused now, where two estimates alone would have fitted.
    const refused = await send(user);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    expect(refused.headers.get('x-ratelimit-limit-tokens')).toBe('100');
    expect(refused.error).toBe('rate_limit_exceeded');
    expect((refused.body['error'] as { type?: string }).type).toBe('tokens');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(50);
  });

  it('limits the requests in flight with a slow upstream, and frees the slot at every end', async () => {
    const user = await limitedUser({ concurrency_limit: 1 });
    let open: () => void = () => undefined;
    upstream.hold = new Promise<void>((resolve) => (open = resolve));
    const before = upstream.requests.length;
    const slow = send(user);
    try {
      // The slow request holds the slot once it reaches the upstream (the earlier tests' requests
      // count too: only a new one says so). Sent before, the second could take the slot first and
      // wait on the held upstream itself, with nothing left to open it.
      await expect.poll(() => upstream.requests.length - before, { timeout: 5000 }).toBe(1);
      const refused = await send(user);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
    } finally {
      // Opened whatever happened above: a held upstream would hang every test after this one.
      upstream.hold = undefined;
      open();
    }
    expect((await slow).status).toBe(200);
    // Freed by a success, an upstream error, a stream read whole and a stream the client left.
    expect((await send(user)).status).toBe(200);
    upstream.failNext(1, 400, 'bad request');
    expect((await send(user)).status).toBe(400);
    expect((await send(user, 'chat', { stream: true })).status).toBe(200);
    upstream.chunkDelayMs = 50;
    const controller = new AbortController();
    const response = await fetch(`${fixture.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(user.key) },
      body: JSON.stringify({ ...ROUTES['chat']?.body, stream: true }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    upstream.chunkDelayMs = 0;
    await expect.poll(async () => (await send(user)).status, { timeout: 5000, interval: 50 }).toBe(200);
  });

  it('shares a group’s limits between its users (GroupRateLimits)', async () => {
    const group = `g${Date.now() % 100000}`;
    await fixture.root.put('/api/option/', {
      key: 'GroupRatio',
      value: JSON.stringify({ default: 1, vip: 1, [group]: 1 }),
    });
    await fixture.channel({ name: 'group', base_url: upstream.url, models: MODEL, group });
    expect(
      (
        await fixture.root.put('/api/option/', {
          key: 'GroupRateLimits',
          value: JSON.stringify({ [group]: { rpm: 3 } }),
        })
      ).body.success,
    ).toBe(true);
    const alice = await fixture.user({ group });
    const bob = await fixture.user({ group });
    const outsider = await fixture.user();
    expect((await send(alice)).status).toBe(200);
    expect((await send(bob)).status).toBe(200);
    expect((await send(alice)).headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const refused = await send(bob);
    expect(refused.status).toBe(429);
    expect((refused.body['error'] as { message?: string }).message).toMatch(/the group/);
    expect((await send(outsider)).status).toBe(200);
  });

  it('applies a user’s limits, set by an administrator, to all their keys at once', async () => {
    const user = await fixture.user();
    // Relayed once without limits: the user is in the relay's memory when the limit is set.
    expect((await send(user)).headers.get('x-ratelimit-limit-requests')).toBeNull();
    expect((await fixture.root.put('/api/user/', { id: user.userId, rpm_limit: 2 })).body.success).toBe(true);
    const first = await send(user);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit-requests')).toBe('2');
    expect((await send(user)).status).toBe(200);
    const refused = await send(user);
    expect(refused.status).toBe(429);
    expect((refused.body['error'] as { message?: string }).message).toMatch(
      /this user: 2 requests per minute/,
    );
    expect((await fixture.root.put('/api/user/', { id: user.userId, rpm_limit: 0 })).body.success).toBe(true);
    expect((await send(user)).status).toBe(200);
  });

  it('leaves a request without limits without rate limit headers', async () => {
    const free = await fixture.user();
    const answer = await send(free);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit-requests')).toBeNull();
  });
});
