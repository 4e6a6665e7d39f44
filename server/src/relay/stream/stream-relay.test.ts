import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Adaptor, RelayRequestMeta } from '../providers/adaptor.js';
import { anthropicAdaptor } from '../providers/anthropic/anthropic-adaptor.js';
import { createOpenAiAdaptor } from '../providers/openai/openai-adaptor.js';
import { relayStream, type StreamOutcome } from './stream-relay.js';
import { UpstreamBody } from '../upstream/upstream-body.js';

const meta: RelayRequestMeta = {
  mode: 'chat',
  path: '/v1/chat/completions',
  model: 'gpt-4o',
  stream: true,
  channel: { id: 1, type: CHANNEL_TYPE.openAi, key: 'sk-x', baseUrl: 'http://127.0.0.1:9', config: {} },
  body: {},
  clientHeaders: {},
};

/** OpenAI's stream when usage was asked for: `"usage":null` on every chunk, then a usage chunk. */
const OPENAI_STREAM = [
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":null}\n\n',
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hel"}}],"usage":null}\n\n',
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"lo"}}],"usage":null}\n\n',
  'data: {"id":"c1","object":"chat.completion.chunk","ping":true}\n\n',
  'data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11}}\n\n',
  'data: [DONE]\n\n',
];

const run = async (
  clientWantsUsage: boolean,
  pieces: readonly (string | Buffer)[],
  adaptor: Adaptor = createOpenAiAdaptor(),
  streamMeta: RelayRequestMeta = meta,
) => {
  let outcome: StreamOutcome | undefined;
  // The pieces arrive one per turn of the event loop, as separate reads from a socket would.
  const body = new UpstreamBody();
  const feed = (index: number) => {
    const piece = pieces[index];
    if (piece === undefined) body.end();
    else {
      body.push(typeof piece === 'string' ? Buffer.from(piece) : piece);
      setImmediate(() => feed(index + 1));
    }
  };
  setImmediate(() => feed(0));
  const upstream = { status: 200, headers: {}, body };
  const source = relayStream({
    adaptor,
    meta: streamMeta,
    upstream,
    clientWantsUsage,
    abortUpstream: () => undefined,
    onFinish: (finished) => {
      outcome = finished;
    },
  });
  let out = '';
  for (let chunk = await source.next(); chunk !== undefined; chunk = await source.next())
    out += Buffer.from(chunk).toString('utf8');
  return { out, outcome };
};

/** A stream relayed from a body the test feeds itself; the client did not ask for usage. */
const streamOf = (body: UpstreamBody, onFinish: (outcome: StreamOutcome) => void) =>
  relayStream({
    adaptor: createOpenAiAdaptor(),
    meta,
    upstream: { status: 200, headers: {}, body },
    clientWantsUsage: false,
    abortUpstream: () => undefined,
    onFinish,
  });

describe('relayStream on an OpenAI stream that carries "usage":null', () => {
  it('forwards the content chunks byte for byte and drops the usage chunk the client did not ask for', async () => {
    const { out, outcome } = await run(false, OPENAI_STREAM);
    expect(out).toBe(
      (OPENAI_STREAM[0] ?? '') + (OPENAI_STREAM[1] ?? '') + (OPENAI_STREAM[2] ?? '') + 'data: [DONE]\n\n',
    );
    expect(outcome).toEqual({
      usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
      text: '',
      aborted: false,
    });
  });

  it('keeps the usage chunk when the client asked for it, and drops a chunk without choices', async () => {
    const { out } = await run(true, OPENAI_STREAM);
    expect(out).toContain('"usage":{"prompt_tokens":9');
    expect(out).not.toContain('"ping":true');
  });

  it('gives the same answer whether the stream comes whole, byte by byte or as sent', async () => {
    const whole = OPENAI_STREAM.join('');
    const asSent = await run(false, OPENAI_STREAM);
    const inOne = await run(false, [whole]);
    const byByte = await run(
      false,
      [...whole].map((character) => character),
    );
    expect(inOne).toEqual(asSent);
    expect(byByte).toEqual(asSent);
  });

  it('counts the text itself when the usage never comes, with events split anywhere', async () => {
    const whole = [OPENAI_STREAM[1], OPENAI_STREAM[2], 'data: [DONE]\n\n'].join('');
    const pieces = [whole.slice(0, 7), whole.slice(7, 90), whole.slice(90)];
    const { out, outcome } = await run(false, pieces);
    expect(out).toBe(whole);
    expect(outcome?.usage).toBeUndefined();
    expect(outcome?.text).toBe('Hello');
  });

  it('drops a chunk without choices between plain ones, keeping the order, and counts around it', async () => {
    const [e0 = '', e1 = '', e2 = '', ping = ''] = OPENAI_STREAM;
    const { out, outcome } = await run(false, [e0 + ping + e1, e2 + 'data: [DONE]\n\n']);
    expect(out).toBe(e0 + e1 + e2 + 'data: [DONE]\n\n');
    expect(outcome?.usage).toBeUndefined();
    expect(outcome?.text).toBe('Hello');
  });

  it('forwards a CRLF-framed stream event by event, not at its end', async () => {
    const body = new UpstreamBody();
    const source = streamOf(body, () => undefined);
    const first =
      '{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}';
    body.push(Buffer.from(`data: ${first}\r\n\r\ndata: {"id":"c1","obj`));
    expect(Buffer.from((await source.next()) ?? []).toString()).toBe(`data: ${first}\n\n`);
    body.push(Buffer.from('ect":"chat.completion.chunk","choices":[{"index":0,"delta":{}}]}\r\n\r\n'));
    expect(Buffer.from((await source.next()) ?? []).toString()).toContain('"delta":{}');
    body.end();
    expect(Buffer.from((await source.next()) ?? []).toString()).toBe('data: [DONE]\n\n');
    expect(await source.next()).toBeUndefined();
  });

  it('says the chunk is the last when the upstream ended with it, so the response can end with it', async () => {
    const body = new UpstreamBody();
    let finished = 0;
    const source = streamOf(body, () => {
      finished += 1;
    });
    body.push(Buffer.from(OPENAI_STREAM.slice(0, 2).join('')));
    await source.next();
    expect(source.done).toBe(false);
    // A data property, not a getter: a getter would give each stream a hidden class of its own that
    // keeps the whole request alive until a full GC (seen as 25× the promoted memory).
    expect(Object.getOwnPropertyDescriptor(source, 'done')).toHaveProperty('writable', true);
    body.push(Buffer.from(OPENAI_STREAM.slice(2).join('')));
    body.end();
    const last = Buffer.from((await source.next()) ?? []).toString();
    expect(source.done).toBe(true);
    expect(finished).toBe(1);
    expect(last).toBe((OPENAI_STREAM[2] ?? '') + 'data: [DONE]\n\n');
    expect(await source.next()).toBeUndefined();
    expect(finished).toBe(1);
  });

  it('passes UTF-8 through byte for byte, split anywhere, and counts it as text', async () => {
    const event = (content: string, extra = '') =>
      `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${content}"}}]${extra}}\n\n`;
    const stream = [
      event('Grüße, '),
      event('世界 🎉'),
      'data: {"id":"ç","object":"chat.completion.chunk","choices":[],"note":"é"}\n\n',
      'data: [DONE]\n\n',
    ].join('');
    const bytes = Buffer.from(stream, 'utf8');
    const byByte = [...bytes].map((byte) => Buffer.from([byte]));
    const { out, outcome } = await run(false, byByte);
    expect(out).toBe(
      stream.replace('data: {"id":"ç","object":"chat.completion.chunk","choices":[],"note":"é"}\n\n', ''),
    );
    expect(outcome?.text).toBe('Grüße, 世界 🎉');
    const whole = await run(true, [bytes]);
    expect(whole.out).toBe(out);
  });

  it('answers a stream that already ended at once, as the chunks would have been, and bills it once', async () => {
    const pending = new UpstreamBody();
    pending.push(Buffer.from(OPENAI_STREAM.slice(0, 2).join('')));
    expect(streamOf(pending, () => undefined).whole()).toBeUndefined();

    const body = new UpstreamBody();
    for (const piece of OPENAI_STREAM) body.push(Buffer.from(piece));
    body.end();
    const outcomes: StreamOutcome[] = [];
    const source = streamOf(body, (outcome) => outcomes.push(outcome));
    const whole = Buffer.from(source.whole() ?? []).toString();
    expect(whole).toBe((await run(false, OPENAI_STREAM)).out);
    expect(source.done).toBe(true);
    expect(await source.next()).toBeUndefined();
    expect(outcomes).toEqual([
      { usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 }, text: '', aborted: false },
    ]);
  });

  it('ends the client’s stream with an error event, no [DONE], and bills what came when the upstream breaks mid-stream', async () => {
    const broken = async (error: Error, partial: string) => {
      const body = new UpstreamBody();
      const outcomes: StreamOutcome[] = [];
      const source = streamOf(body, (outcome) => outcomes.push(outcome));
      body.push(Buffer.from(OPENAI_STREAM.slice(1, 3).join('')));
      expect(Buffer.from((await source.next()) ?? []).toString()).toBe(OPENAI_STREAM.slice(1, 3).join(''));
      // Half an event, then the break: the half is never passed on.
      body.push(Buffer.from(partial));
      const waiting = source.next();
      body.fail(error);
      const last = Buffer.from((await waiting) ?? []).toString();
      expect(source.done).toBe(true);
      expect(await source.next()).toBeUndefined();
      expect(outcomes).toEqual([{ usage: undefined, text: 'Hello', aborted: false }]);
      expect(last).not.toContain('[DONE]');
      expect(last.startsWith('data: ') && last.endsWith('\n\n')).toBe(true);
      return JSON.parse(last.slice('data: '.length)) as unknown;
    };
    expect(
      await broken(new Error('other side closed'), 'data: {"choices":[{"delta":{"content":" wor'),
    ).toEqual({
      error: {
        message: 'the upstream broke off in the middle of its answer: the answer is incomplete',
        type: 'upstream_error',
        param: '',
        code: 'stream_broken',
      },
    });
    expect(await broken(new errors.BodyTimeoutError(), '')).toEqual({
      error: {
        message: 'the upstream fell silent in the middle of its answer: the answer is incomplete',
        type: 'upstream_error',
        param: '',
        code: 'stream_idle_timeout',
      },
    });
  });

  it('passes an error the provider reports mid-stream on as OpenAI’s error event, without the channel key', async () => {
    const claude: RelayRequestMeta = {
      ...meta,
      model: 'claude-3-5-sonnet-20241022',
      channel: {
        id: 2,
        type: CHANNEL_TYPE.anthropic,
        key: 'sk-ant-secret-key-123',
        baseUrl: 'http://127.0.0.1:9',
        config: {},
      },
    };
    const { out, outcome } = await run(
      false,
      [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":25,"output_tokens":1}}}\n\n',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded (key sk-ant-secret-key-123)"}}\n\n',
      ],
      anthropicAdaptor,
      claude,
    );
    // The error event is the stream's last word: no [DONE] that would make the answer look complete.
    const events = out.split('\n\n').filter((event) => event !== '');
    expect(out).not.toContain('[DONE]');
    expect(JSON.parse(events.at(-1)?.slice('data: '.length) ?? '')).toEqual({
      error: {
        message: 'Overloaded (key [redacted])',
        type: 'overloaded_error',
        param: '',
        code: 'overloaded_error',
      },
    });
    expect(out).not.toContain('sk-ant-secret-key-123');
    expect(outcome).toMatchObject({ text: 'Hel', aborted: false });
  });
});

describe('relayStream on a stream that is not server-sent events', () => {
  it('reads the events with the adaptor’s own decoder, frames split anywhere', async () => {
    // A toy framing: each event is its data's length, a colon, then the data (as AWS's binary event
    // stream, its frames do not follow lines).
    const frames = [
      '{"type":"message_start","message":{"id":"m1","usage":{"input_tokens":7}}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi there"}}',
      '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}',
    ]
      .map((data) => `${Buffer.byteLength(data)}:${data}`)
      .join('');
    const decodeStream = () => {
      let buffer = '';
      const take = () => {
        const events = [];
        for (;;) {
          const colon = buffer.indexOf(':');
          if (colon === -1) break;
          const size = Number(buffer.slice(0, colon));
          if (buffer.length < colon + 1 + size) break;
          events.push({ event: '', data: buffer.slice(colon + 1, colon + 1 + size) });
          buffer = buffer.slice(colon + 1 + size);
        }
        return events;
      };
      return {
        feed: (chunk: Buffer) => {
          buffer += chunk.toString('utf8');
          return take();
        },
        end: () => take(),
      };
    };
    const adaptor = { ...anthropicAdaptor, decodeStream };
    const claude = { ...meta, channel: { ...meta.channel, type: CHANNEL_TYPE.anthropic } };
    const whole = await run(false, [frames], adaptor, claude);
    expect(whole.out).toContain('"content":"Hi there"');
    expect(whole.outcome?.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    const split = await run(
      false,
      [...frames].map((character) => character),
      adaptor,
      claude,
    );
    expect(split.outcome).toEqual(whole.outcome);
  });
});
