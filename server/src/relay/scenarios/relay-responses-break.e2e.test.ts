import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import type { ServerResponse } from 'node:http';
import type OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listenHandler } from '../../test-support/listen.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { consumeLogs } from '../../test-support/relay-helpers.js';
import { countTextTokens } from '../metering/token-counter.js';

const SSE = { 'content-type': 'text/event-stream' };
const IDLE = 'the upstream fell silent in the middle of its answer: the answer is incomplete';
const event = (type: string, fields: Record<string, unknown>, sequence: number) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...fields, sequence_number: sequence })}\n\n`;
const RESPONSE = {
  id: 'resp_upstream',
  object: 'response',
  created_at: 1741476542,
  status: 'in_progress',
  error: null,
  incomplete_details: null,
  model: 'gpt-4o',
  output: [],
  usage: null,
};
const at = { item_id: 'msg_upstream', output_index: 0, content_index: 0 };
/** OpenAI's Responses stream up to two deltas of a message, then silence. */
const RESPONSES_HEAD = [
  event('response.created', { response: RESPONSE }, 0),
  event('response.in_progress', { response: RESPONSE }, 1),
  event(
    'response.output_item.added',
    {
      output_index: 0,
      item: { id: 'msg_upstream', type: 'message', status: 'in_progress', role: 'assistant', content: [] },
    },
    2,
  ),
  event(
    'response.content_part.added',
    { ...at, part: { type: 'output_text', text: '', annotations: [] } },
    3,
  ),
  event('response.output_text.delta', { ...at, delta: 'Hello', logprobs: [] }, 4),
  event('response.output_text.delta', { ...at, delta: ' world', logprobs: [] }, 5),
].join('');
const chunk = (content: string) =>
  `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"deepseek-chat","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]}\n\n`;

/** Upstreams that fall silent mid-answer, by the first segment of the path; each keeps its connection open. */
const STALLS: Record<string, (response: ServerResponse) => void> = {
  native: (response) => {
    response.writeHead(200, SSE);
    response.write(RESPONSES_HEAD);
  },
  chat: (response) => {
    response.writeHead(200, SSE);
    response.write(chunk('Hello') + chunk(' world'));
  },
};

/**
 * A Responses stream that breaks after it opened ends with `error` and `response.failed` (the
 * response as it stood: status failed, its error, the output delivered, its usage), never with
 * `response.completed`, whether the channel speaks the Responses API itself or goes through the hub.
 */
describe('relay: a broken Responses stream ends with response.failed', () => {
  let fixture: RelayFixture;
  let stalls: Awaited<ReturnType<typeof listenHandler>>;
  const stalled = new Set<ServerResponse>();

  beforeAll(async () => {
    stalls = await listenHandler((request, _body, response) => {
      stalled.add(response);
      STALLS[(request.url ?? '').split('/')[1] ?? '']?.(response);
    });
    fixture = await startRelayFixture('sqlite');
    const config = JSON.stringify({ idle_timeout: 0.3 });
    await fixture.channel({ base_url: `${stalls.url}/native`, models: 'gpt-4o', config });
    await fixture.channel({
      type: CHANNEL_TYPE.deepSeek,
      base_url: `${stalls.url}/chat`,
      models: 'deepseek-chat',
      config,
    });
  });
  afterEach(() => {
    for (const response of stalled) response.destroy();
    stalled.clear();
  });
  afterAll(async () => {
    await fixture?.close();
    await stalls?.close();
  });

  /** The events of a stream through the SDK, and what the SDK's stream helper makes of another. */
  const broken = async (user: RelayUser, model: string) => {
    const stream = await user.sdk.responses.create({ model, input: 'Hi', stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const one of stream) events.push(one);
    return events;
  };

  const expectFailed = async (model: string, firstFailedSequence: number) => {
    const user = await fixture.user();
    const events = await broken(user, model);
    const types = events.map((one) => one.type);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    expect(types).not.toContain('response.completed');
    const [error, failed] = events.slice(-2);
    expect(error).toEqual({
      type: 'error',
      code: 'stream_idle_timeout',
      message: IDLE,
      param: null,
      sequence_number: firstFailedSequence,
    });
    if (failed?.type !== 'response.failed') throw new Error('no response.failed');
    expect(failed.sequence_number).toBe(firstFailedSequence + 1);
    const response = failed.response;
    expect(response).toMatchObject({
      object: 'response',
      status: 'failed',
      error: { code: 'server_error', message: IDLE },
      usage: null,
    });
    expect(response.output).toEqual([
      expect.objectContaining({
        type: 'message',
        status: 'incomplete',
        content: [expect.objectContaining({ type: 'output_text', text: 'Hello world' })],
      }),
    ]);
    // The SDK's stream helper raises the failure rather than answering a response.
    const outcome = await user.sdk.responses
      .stream({ model, input: 'Hi' })
      .finalResponse()
      .then(
        () => 'answered',
        (caught: unknown) => caught,
      );
    expect(outcome).toMatchObject({ type: 'error', code: 'stream_idle_timeout' });
    // Billed for what was delivered, as any broken stream.
    await fixture.test.sluice.idle();
    const logs = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    expect(logs).toHaveLength(2);
    for (const log of logs) {
      expect(log.completion_tokens).toBe(countTextTokens('Hello world', model));
      expect(log.quota).toBeGreaterThan(0);
    }
    return response;
  };

  it('on a channel that speaks the Responses API itself: the upstream’s response, failed', async () => {
    const response = await expectFailed('gpt-4o', 6);
    expect(response.id).toBe('resp_upstream');
    expect(response.output[0]).toMatchObject({ id: 'msg_upstream' });
  });

  it('on a channel translated through the hub', async () => {
    const response = await expectFailed('deepseek-chat', 6);
    expect(response.id).toMatch(/^resp_/);
  });
});
