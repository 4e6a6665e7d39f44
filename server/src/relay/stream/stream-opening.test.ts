import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import type { Adaptor, RelayRequestMeta } from '../providers/adaptor.js';
import { anthropicAdaptor } from '../providers/anthropic/index.js';
import { geminiAdaptor } from '../providers/gemini/index.js';
import { createOpenAiAdaptor } from '../providers/openai/index.js';
import { UpstreamBody } from '../upstream/upstream-body.js';
import { StreamRefused } from './stream-opening.js';
import { relayStream, type RelayStream, type StreamOutcome } from './stream-relay.js';

const KEY = 'sk-secret-channel-key-42';
const metaOf = (type: number, model: string): RelayRequestMeta => ({
  mode: 'chat',
  path: '/v1/chat/completions',
  model,
  stream: true,
  channel: { id: 1, type, key: KEY, baseUrl: 'http://127.0.0.1:9', config: {} },
  body: {},
  clientHeaders: {},
});

interface Provider {
  readonly adaptor: Adaptor;
  readonly meta: RelayRequestMeta;
}
const openAi: Provider = { adaptor: createOpenAiAdaptor(), meta: metaOf(CHANNEL_TYPE.openAi, 'gpt-4o') };
const claude = {
  adaptor: anthropicAdaptor as Adaptor,
  meta: metaOf(CHANNEL_TYPE.anthropic, 'claude-3-5-haiku'),
};
const gemini = { adaptor: geminiAdaptor as Adaptor, meta: metaOf(CHANNEL_TYPE.gemini, 'gemini-1.5-pro') };

const CHUNK = (content: string) =>
  `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${content}"}}]}\n\n`;
const OPENAI_STREAM = [CHUNK('Hel'), CHUNK('lo'), 'data: [DONE]\n\n'];
const CLAUDE_START =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"output_tokens":1}}}\n\n';
const GEMINI_EVENT =
  'data: {"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}]}\n\n';

/** A stream over a body fed `pieces` one per turn of the event loop (or already ended, with `ended`). */
const streamOf = (provider: Provider, pieces: readonly string[], ended = false) => {
  const body = new UpstreamBody();
  const outcomes: StreamOutcome[] = [];
  const aborted = { value: false };
  const feed = (index: number) => {
    const piece = pieces[index];
    if (piece === undefined) body.end();
    else {
      body.push(Buffer.from(piece));
      setImmediate(() => feed(index + 1));
    }
  };
  if (ended) {
    for (const piece of pieces) body.push(Buffer.from(piece));
    body.end();
  } else setImmediate(() => feed(0));
  const stream = relayStream({
    ...provider,
    upstream: { status: 200, headers: {}, body },
    clientWantsUsage: false,
    abortUpstream: () => {
      aborted.value = true;
      body.destroy();
    },
    onFinish: (outcome) => outcomes.push(outcome),
  });
  return { stream, outcomes, aborted };
};

/** Everything the client gets from an opened stream. */
const drain = async (opened: Uint8Array | RelayStream): Promise<string> => {
  if (opened instanceof Uint8Array) return Buffer.from(opened).toString('utf8');
  let out = '';
  for (let chunk = await opened.next(); chunk !== undefined; chunk = await opened.next())
    out += Buffer.from(chunk).toString('utf8');
  return out;
};

/** The refusal of a stream that must not open: nothing billed, the upstream aborted. */
const refusalOf = async (provider: Provider, pieces: readonly string[], ended = false) => {
  const { stream, outcomes, aborted } = streamOf(provider, pieces, ended);
  const error = await Promise.resolve()
    .then(() => stream.open())
    .then(
      () => undefined,
      (failure: unknown) => failure,
    );
  expect(error).toBeInstanceOf(StreamRefused);
  expect(outcomes).toEqual([]);
  expect(aborted.value).toBe(true);
  return error as StreamRefused;
};

describe('relayStream().open', () => {
  it('opens on the first OpenAI chunk, and the client gets every byte as before, in pieces of any size', async () => {
    const whole = OPENAI_STREAM.join('');
    for (const size of [1, 2, 7, 40, whole.length]) {
      const pieces = whole.match(new RegExp(`[^]{1,${size}}`, 'g')) ?? [];
      const { stream, outcomes } = streamOf(openAi, pieces);
      expect(await drain(await stream.open()), `pieces of ${size}`).toBe(whole);
      expect(outcomes).toEqual([{ usage: undefined, text: 'Hello', aborted: false }]);
    }
  });

  it('answers a stream already ended at once, without a promise', () => {
    const { stream, outcomes } = streamOf(openAi, OPENAI_STREAM, true);
    const opened = stream.open();
    expect(opened).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(opened as Uint8Array).toString()).toBe(OPENAI_STREAM.join(''));
    expect(outcomes).toHaveLength(1);
  });

  it('waits past keep-alives, comments and Azure’s prompt filter results, holding nothing back after', async () => {
    const filter = 'data: {"choices":[],"id":"","object":"","prompt_filter_results":[]}\n\n';
    const ping = ': keep-alive\n\ndata: {"id":"c1","object":"chat.completion.chunk","ping":true}\n\n';
    const { stream } = streamOf(openAi, [filter, ping, ...OPENAI_STREAM]);
    expect(await drain(await stream.open())).toBe(OPENAI_STREAM.join(''));
    const anthropic = streamOf(claude, ['event: ping\ndata: {"type":"ping"}\n\n', CLAUDE_START]);
    expect(await drain(await anthropic.stream.open())).toContain('"role":"assistant"');
  });

  it.each([
    ['an HTML page', ['<html><body>\n\n<h1>502 Bad Gateway</h1>\n\n</body></html>']],
    ['text that is not an event', ['hello world, no events here']],
    ['a data line that is not JSON', ['data: <!doctype html>\n\n', ...OPENAI_STREAM]],
    ['a JSON array', ['data: [1,2,3]\n\n']],
    ['[DONE] first', ['data: [DONE]\n\n']],
    ['nothing at all', []],
    ['keep-alives only', [': ping\n\n', 'data: {"object":"chat.completion.chunk"}\n\n']],
  ])('refuses %s from an OpenAI-format channel', async (_name, pieces) => {
    await refusalOf(openAi, pieces);
    await refusalOf(openAi, pieces, true);
  });

  it('refuses an error sent as the first event, or as a JSON body with a 200 stream, with the provider’s words', async () => {
    const error = `{"error":{"message":"You exceeded your quota (key ${KEY})","type":"insufficient_quota","code":"insufficient_quota"}}`;
    for (const pieces of [[`data: ${error}\n\n`], [error]]) {
      const refused = await refusalOf(openAi, pieces);
      expect(refused.upstream).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
      expect(refused.message).toContain('You exceeded your quota');
    }
    const overloaded =
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    expect((await refusalOf(claude, [overloaded])).upstream).toMatchObject({ type: 'overloaded_error' });
    const quota =
      'data: {"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED"}}\n\n';
    expect((await refusalOf(gemini, [quota])).upstream?.message).toBe('Resource exhausted');
  });

  it.each([
    ['Anthropic', claude, CLAUDE_START],
    ['Gemini', gemini, GEMINI_EVENT],
  ])(
    'opens a translated %s stream on its first event, and refuses garbage or an early end',
    async (_name, provider, first) => {
      const { stream } = streamOf(provider, [first]);
      expect(await drain(await stream.open())).toMatch(/^data: \{"id":"chatcmpl-.*\n\ndata: \[DONE\]\n\n$/s);
      await refusalOf(provider, ['<html>oops</html>\n\n']);
      await refusalOf(provider, ['data: not json\n\n', first]);
      await refusalOf(provider, []);
      await refusalOf(provider, [': comment\n\n']);
    },
  );

  it('passes the upstream’s failure before the first event on as it is (a timeout, a reset)', async () => {
    const body = new UpstreamBody();
    const outcomes: StreamOutcome[] = [];
    const stream = relayStream({
      ...openAi,
      upstream: { status: 200, headers: {}, body },
      clientWantsUsage: false,
      abortUpstream: () => body.destroy(),
      onFinish: (outcome) => outcomes.push(outcome),
    });
    const opening = stream.open();
    body.push(Buffer.from(': still thinking\n\n'));
    const timeout = Object.assign(new Error('Body Timeout Error'), { code: 'UND_ERR_BODY_TIMEOUT' });
    setImmediate(() => body.fail(timeout));
    await expect(opening).rejects.toBe(timeout);
    expect(outcomes).toEqual([]);
  });

  it('once opened, a break later ends the client’s stream with an error event (no [DONE]), billed for what came', async () => {
    const body = new UpstreamBody();
    const outcomes: StreamOutcome[] = [];
    const stream = relayStream({
      ...openAi,
      upstream: { status: 200, headers: {}, body },
      clientWantsUsage: false,
      abortUpstream: () => body.destroy(),
      onFinish: (outcome) => outcomes.push(outcome),
    });
    body.push(Buffer.from(CHUNK('Hel')));
    const opened = await stream.open();
    if (opened instanceof Uint8Array) throw new Error('expected a stream');
    expect(Buffer.from((await opened.next()) ?? []).toString()).toBe(CHUNK('Hel'));
    const waiting = opened.next();
    body.fail(new Error('other side closed'));
    const last = Buffer.from((await waiting) ?? []).toString();
    expect(last).toMatch(/^data: \{"error":\{.*"code":"stream_broken"\}\}\n\n$/);
    expect(outcomes).toEqual([{ usage: undefined, text: 'Hel', aborted: false }]);
  });
});
