import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listenHandler } from '../../test-support/listen.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import {
  chatBody,
  consumeLogs,
  doublePool,
  formulaCost,
  relayPost,
  tokenCounters,
  userCounters,
} from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';
import { countTextTokens } from '../metering/token-counter.js';

const CLAUDE = 'claude-3-5-sonnet-20241022';
const SSE = { 'content-type': 'text/event-stream' };
const chunk = (content: string) =>
  `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]}\n\n`;
const CLAUDE_HEAD = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-3-5-sonnet-20241022","content":[],"stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: ping\ndata: {"type":"ping"}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello there"}}\n\n',
].join('');

/** Upstreams that stall, by the first segment of the base URL's path; each keeps its connection open. */
const STALLS: Record<string, (response: ServerResponse) => void> = {
  // Never sends its headers.
  mute: () => undefined,
  // Sends its headers, then only keep-alive comments: the stream never opens.
  pings: (response) => {
    response.writeHead(200, SSE);
    const timer = setInterval(() => response.write(': keep-alive\n\n'), 100);
    response.on('close', () => clearInterval(timer));
  },
  // Two chunks, then half of a third, then silence.
  cut: (response) => {
    response.writeHead(200, SSE);
    response.write(chunk('Hello') + chunk(' world') + 'data: {"id":"c1","obj');
  },
  // Anthropic's opening and some text, then silence.
  claude: (response) => {
    response.writeHead(200, SSE);
    response.write(CLAUDE_HEAD);
  },
};

/** The events of a server-sent stream's text. */
const eventsOf = (text: string) => text.split('\n\n').filter((event) => event !== '');

describe.each(testDialects())('relay: per-channel timeouts on %s (failover, broken streams)', (dialect) => {
  let fixture: RelayFixture;
  let stalls: Awaited<ReturnType<typeof listenHandler>>;
  const stalled = new Set<ServerResponse>();
  const doubles = doublePool();
  let groups = 0;

  beforeAll(async () => {
    stalls = await listenHandler((request, _body, response) => {
      stalled.add(response);
      STALLS[(request.url ?? '').split('/')[1] ?? '']?.(response);
    });
    // No RELAY_TIMEOUT: the defaults (600 s to the first byte, 300 s idle); the channels set their own.
    fixture = await startRelayFixture(dialect);
    await fixture.test.sluice.services.options.update('RetryTimes', '2');
  });
  afterEach(async () => {
    for (const response of stalled) response.destroy();
    stalled.clear();
    await doubles.closeAll();
  });
  afterAll(async () => {
    await fixture?.close();
    await stalls?.close();
  });

  const db = () => fixture.test.sluice.database.db;

  /** A fresh group: `stall` (priority 10, with `config`) then, with `good`, a working double (priority 5). */
  const routes = async (
    stall: string,
    config: Record<string, unknown>,
    good: boolean,
    type: number = CHANNEL_TYPE.openAi,
  ) => {
    groups += 1;
    const group = `timeouts${groups}`;
    const models = type === CHANNEL_TYPE.anthropic ? CLAUDE : 'gpt-4o';
    const stallId = await fixture.channel({
      name: stall,
      type,
      base_url: `${stalls.url}/${stall}`,
      models,
      group,
      priority: 10,
      config: JSON.stringify(config),
    });
    const double = good ? await doubles.start() : undefined;
    const goodId = double
      ? await fixture.channel({ name: 'good', base_url: double.url, models, group, priority: 5 })
      : undefined;
    const user = await fixture.user({
      quota: 100_000,
      group,
      token: { unlimited_quota: false, remain_quota: 100_000 },
    });
    return { user, double, stallId, goodId };
  };

  const chat = (user: RelayUser, extra: Record<string, unknown> = {}) =>
    relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o', extra));

  /** The user and the key paid exactly the one log row's quota. */
  const expectPaid = async (user: RelayUser, quota: number) => {
    expect(await userCounters(db(), user.userId)).toMatchObject({
      quota: 100_000 - quota,
      used_quota: quota,
    });
    expect(await tokenCounters(db(), user.tokenId)).toMatchObject({
      remain_quota: 100_000 - quota,
      used_quota: quota,
    });
  };

  it('fails a stream that does not open within the channel’s first-byte timeout over to the next channel', async () => {
    const { user, goodId } = await routes('pings', { first_byte_timeout: 0.5 }, true);
    const started = performance.now();
    const answer = await chat(user, { stream: true });
    const took = performance.now() - started;
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"content":"Hello ');
    expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(answer.text).not.toContain('keep-alive');
    // Keep-alives did not put it off: the channel's 0.5 s, not the default 600 s.
    expect(took).toBeGreaterThanOrEqual(450);
    expect(took).toBeLessThan(5000);
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(db(), user.userId);
    expect(logs.map((log) => log.channel_id)).toEqual([goodId]);
    await expectPaid(user, logs[0]?.quota ?? -1);
  });

  it('fails an upstream that sends no headers within the first-byte timeout over, streamed or not', async () => {
    const { user, double, goodId } = await routes('mute', { first_byte_timeout: '0.3' }, true);
    const [streamed, whole] = await Promise.all([chat(user, { stream: true }), chat(user)]);
    expect(streamed.status).toBe(200);
    expect(streamed.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(whole.status).toBe(200);
    expect(whole.json['choices']).toEqual([
      expect.objectContaining({ message: expect.objectContaining({ content: double?.reply }) }),
    ]);
    await fixture.test.sluice.idle();
    expect((await consumeLogs(db(), user.userId)).map((log) => log.channel_id)).toEqual([goodId, goodId]);
  });

  it('counts a timed-out attempt in RetryTimes: with none left, a 504 that costs nothing', async () => {
    await fixture.test.sluice.services.options.update('RetryTimes', '0');
    try {
      const { user } = await routes('pings', { first_byte_timeout: 0.3 }, true);
      const answer = await chat(user, { stream: true });
      expect(answer.status).toBe(504);
      expect(answer.json.error).toMatchObject({ code: 'do_request_failed' });
      await fixture.test.sluice.idle();
      expect(await consumeLogs(db(), user.userId)).toHaveLength(0);
      await expectPaid(user, 0);
    } finally {
      await fixture.test.sluice.services.options.update('RetryTimes', '2');
    }
  });

  it('ends a stream that falls silent past the idle timeout with an error event, no [DONE], billed for what came', async () => {
    const { user, stallId } = await routes('cut', { idle_timeout: 0.3 }, true);
    const answer = await chat(user, { stream: true });
    expect(answer.status).toBe(200);
    const events = eventsOf(answer.text);
    // The whole chunks that came, then the error; never the half chunk, a usage chunk or [DONE].
    expect(events.slice(0, 2).join('\n\n') + '\n\n').toBe(chunk('Hello') + chunk(' world'));
    expect(events).toHaveLength(3);
    expect(answer.text).not.toContain('[DONE]');
    expect(JSON.parse(events[2]?.slice('data: '.length) ?? '')).toEqual({
      error: {
        message: 'the upstream fell silent in the middle of its answer: the answer is incomplete',
        type: 'upstream_error',
        param: '',
        code: 'stream_idle_timeout',
      },
    });
    await fixture.test.sluice.idle();
    // Not failed over (the client had its first bytes): billed on the channel that delivered them.
    const logs = await consumeLogs(db(), user.userId);
    expect(logs).toHaveLength(1);
    const log = logs[0];
    expect(log?.channel_id).toBe(stallId);
    expect(log?.is_stream).toBe(true);
    expect(log?.completion_tokens).toBe(countTextTokens('Hello world', 'gpt-4o'));
    expect(log?.prompt_tokens).toBeGreaterThan(0);
    const cost = formulaCost(
      'gpt-4o',
      CHANNEL_TYPE.openAi,
      log?.prompt_tokens ?? 0,
      log?.completion_tokens ?? 0,
    );
    expect(log?.quota).toBe(cost);
    await expectPaid(user, cost);
  });

  it('ends an Anthropic client’s native stream that falls silent with Anthropic’s error event, billed for what came', async () => {
    const { user, stallId } = await routes('claude', { idle_timeout: 0.3 }, false, CHANNEL_TYPE.anthropic);
    const answer = await relayPost(fixture, `sk-${user.key}`, '/v1/messages', {
      model: CLAUDE,
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    expect(answer.status).toBe(200);
    // The upstream's events byte for byte, then the error event; no message_delta or message_stop.
    expect(answer.text).toBe(
      CLAUDE_HEAD +
        'event: error\ndata: {"type":"error","error":{"type":"timeout_error","message":"the upstream fell silent ' +
        'in the middle of its answer: the answer is incomplete"}}\n\n',
    );
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(db(), user.userId);
    expect(logs).toHaveLength(1);
    const log = logs[0];
    expect(log?.channel_id).toBe(stallId);
    // The input as message_start said it, the output counted from the text that came.
    expect(log?.prompt_tokens).toBe(25);
    expect(log?.completion_tokens).toBe(countTextTokens('Hello there', CLAUDE));
    const cost = formulaCost(CLAUDE, CHANNEL_TYPE.anthropic, 25, log?.completion_tokens ?? 0);
    expect(log?.quota).toBe(cost);
    await expectPaid(user, cost);
  });

  it('ends an Anthropic client’s translated stream (an OpenAI channel) with Anthropic’s error event, no message_stop', async () => {
    const { user, stallId } = await routes('cut', { idle_timeout: 0.3 }, false);
    const answer = await relayPost(fixture, `sk-${user.key}`, '/v1/messages', {
      model: 'gpt-4o',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"text":"Hello"');
    expect(answer.text).toContain('"text":" world"');
    expect(answer.text).not.toContain('message_stop');
    expect(answer.text).not.toContain('message_delta');
    const last = eventsOf(answer.text).at(-1) ?? '';
    expect(last.startsWith('event: error\n')).toBe(true);
    expect(JSON.parse(last.split('\ndata: ')[1] ?? '')).toMatchObject({
      type: 'error',
      error: { message: 'the upstream fell silent in the middle of its answer: the answer is incomplete' },
    });
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(db(), user.userId);
    expect(logs.map((log) => log.channel_id)).toEqual([stallId]);
    expect(logs[0]?.completion_tokens).toBe(countTextTokens('Hello world', 'gpt-4o'));
    await expectPaid(user, logs[0]?.quota ?? -1);
  });

  it('refuses a channel whose config sets a timeout that is not one, and keeps any other config field', async () => {
    const refused = await fixture
      .channel({ name: 'bad', base_url: stalls.url, models: 'gpt-4o', config: '{"idle_timeout":"soon"}' })
      .catch((error: unknown) => String(error));
    expect(refused).toContain('config.idle_timeout must be a number of seconds above 0');
    const kept = await fixture.channel({
      name: 'kept',
      base_url: stalls.url,
      models: 'gpt-4o',
      config: '{"region":"us-east-1","user_id":"u1","idle_timeout":0,"first_byte_timeout":"30"}',
    });
    expect(kept).toBeGreaterThan(0);
  });
});
