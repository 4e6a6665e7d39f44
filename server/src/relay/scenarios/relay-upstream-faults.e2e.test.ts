import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listenHandler } from '../../test-support/listen.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import {
  chatBody,
  consumeLogs,
  doublePool,
  relayPost,
  tokenCounters,
  userCounters,
} from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';

const KEY = 'sk-upstream-secret-key-000';
const CLAUDE = 'claude-3-5-sonnet-20241022';
const GEMINI = 'gemini-1.5-pro';
const SSE = { 'content-type': 'text/event-stream' };
const CHUNK =
  'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}\n\n';

/** What each faulty upstream does, by the first segment of its base URL's path. */
const FAULTS: Record<string, (response: ServerResponse) => void> = {
  // Accepts the request and never answers.
  hang: () => undefined,
  // Sends its headers, then nothing.
  silent: (response) => response.writeHead(200, SSE),
  html: (response) => {
    response.writeHead(200, SSE);
    response.end('<html><body><h1>Welcome to nginx!</h1></body></html>\n');
  },
  // The provider's error as the stream's first event, quoting the key.
  error: (response) => {
    response.writeHead(200, SSE);
    response.end(`data: {"error":{"message":"upstream overloaded (key ${KEY})","type":"server_error"}}\n\n`);
  },
  empty: (response) => {
    response.writeHead(200, SSE);
    response.end();
  },
  // A valid first event, then the connection is cut.
  breaks: (response) => {
    response.writeHead(200, SSE);
    response.write(CHUNK);
    setTimeout(() => response.socket?.destroy(), 50);
  },
};

describe.each(testDialects())(
  'relay: upstream faults on %s (timeouts, streams that do not open)',
  (dialect) => {
    let fixture: RelayFixture;
    let faults: Awaited<ReturnType<typeof listenHandler>>;
    const doubles = doublePool();
    let groups = 0;

    beforeAll(async () => {
      faults = await listenHandler((request, _body, response) => {
        FAULTS[(request.url ?? '').split('/')[1] ?? '']?.(response);
      });
      // RELAY_TIMEOUT overrides the defaults (600 s to the first byte): 200 ms here.
      fixture = await startRelayFixture(dialect, { RELAY_TIMEOUT: '0.2' });
      await fixture.test.sluice.services.options.update('RetryTimes', '3');
    });
    afterEach(() => doubles.closeAll());
    afterAll(async () => {
      await fixture?.close();
      await faults?.close();
    });

    const db = () => fixture.test.sluice.database.db;
    const chat = (user: RelayUser, extra: Record<string, unknown> = {}, model = 'gpt-4o') =>
      relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody(model, extra));

    /** A fresh group whose channels are `faulty` (priority 10, in order) then, with `good`, a working double. */
    const routes = async (faulty: readonly string[], good: boolean, type: number = CHANNEL_TYPE.openAi) => {
      groups += 1;
      const group = `faults${groups}`;
      const models =
        type === CHANNEL_TYPE.openAi ? 'gpt-4o' : type === CHANNEL_TYPE.anthropic ? CLAUDE : GEMINI;
      for (const fault of faulty)
        await fixture.channel({
          name: fault,
          type,
          base_url: `${faults.url}/${fault}`,
          models,
          group,
          priority: 10,
        });
      const double = good ? await doubles.start() : undefined;
      const goodId = double
        ? await fixture.channel({ name: 'good', base_url: double.url, models, group, priority: 5 })
        : undefined;
      // Not trusted (quota under 100 estimates), and a limited key: the estimate is reserved.
      const user = await fixture.user({
        quota: 100_000,
        group,
        token: { unlimited_quota: false, remain_quota: 100_000 },
      });
      return { user, double, goodId };
    };

    /** The user paid nothing: the reservation went back, no consume log row. */
    const expectUntouched = async (user: RelayUser) => {
      await fixture.test.sluice.idle();
      expect(await userCounters(db(), user.userId)).toMatchObject({ quota: 100_000, used_quota: 0 });
      expect(await tokenCounters(db(), user.tokenId)).toMatchObject({ remain_quota: 100_000, used_quota: 0 });
      expect(await consumeLogs(db(), user.userId)).toHaveLength(0);
    };

    it('fails a hanging upstream over to the next channel, streamed or not, billed once by the one that answered', async () => {
      const { user, double, goodId } = await routes(['hang', 'silent'], true);
      const [streamed, whole] = await Promise.all([chat(user, { stream: true }), chat(user)]);
      expect(streamed.status).toBe(200);
      expect(streamed.text).toContain('data: [DONE]');
      expect(streamed.text).toContain('"content":"Hello ');
      expect(whole.status).toBe(200);
      expect(whole.json['choices']).toEqual([
        expect.objectContaining({ message: expect.objectContaining({ content: double?.reply }) }),
      ]);
      await fixture.test.sluice.idle();
      const logs = await consumeLogs(db(), user.userId);
      expect(logs.map((log) => log.channel_id)).toEqual([goodId, goodId]);
    });

    it.each(['hang', 'silent'])(
      'answers a 504 in OpenAI’s shape, not a hang, when the only channel is %s; it costs nothing',
      async (fault) => {
        const { user } = await routes([fault], false);
        const started = performance.now();
        const answer = await chat(user, { stream: true });
        expect(performance.now() - started).toBeLessThan(5000);
        expect(answer.status).toBe(504);
        expect(answer.json.error).toMatchObject({
          code: 'do_request_failed',
          message: expect.stringContaining('in time'),
        });
        await expectUntouched(user);
      },
    );

    it('fails a 200 stream that does not open over to the next channel before the client got a byte', async () => {
      const { user, goodId } = await routes(['html', 'error', 'empty'], true);
      const answer = await chat(user, { stream: true });
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain('nginx');
      expect(answer.text).not.toContain('overloaded');
      expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);
      await fixture.test.sluice.idle();
      expect((await consumeLogs(db(), user.userId)).map((log) => log.channel_id)).toEqual([goodId]);
    });

    it.each([
      ['html', 'bad_response', 'does not start with an event'],
      ['empty', 'bad_response', 'before its first event'],
      ['error', 'bad_response', 'upstream overloaded (key [redacted])'],
    ])(
      'answers a 502 in OpenAI’s shape for a lone %s stream, and bills nothing',
      async (fault, code, message) => {
        const { user } = await routes([fault], false);
        const answer = await chat(user, { stream: true });
        expect(answer.status).toBe(502);
        expect(answer.contentType).toContain('application/json');
        expect(answer.json.error).toMatchObject({ code, message: expect.stringContaining(message) });
        expect(answer.text).not.toContain(KEY);
        await expectUntouched(user);
      },
    );

    it.each([
      ['Anthropic', CHANNEL_TYPE.anthropic, CLAUDE],
      ['Gemini', CHANNEL_TYPE.gemini, GEMINI],
    ])(
      'answers a 502 for a garbage stream from a %s channel, and bills nothing',
      async (_name, type, model) => {
        const { user } = await routes(['html'], false, type);
        const answer = await chat(user, { stream: true }, model);
        expect(answer.status).toBe(502);
        expect(answer.json.error).toMatchObject({ code: 'bad_response' });
        await expectUntouched(user);
      },
    );

    it('ends a stream that opened and broke later with OpenAI’s error event, no [DONE], billed for what came', async () => {
      const { user } = await routes(['breaks'], false);
      const answer = await chat(user, { stream: true });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(
        `${CHUNK}data: {"error":{"message":"the upstream broke off in the middle of its answer: the answer ` +
          `is incomplete","type":"upstream_error","param":"","code":"stream_broken"}}\n\n`,
      );
      await fixture.test.sluice.idle();
      const logs = await consumeLogs(db(), user.userId);
      expect(logs).toHaveLength(1);
      expect(logs[0]?.quota).toBeGreaterThan(0);
    });
  },
);
