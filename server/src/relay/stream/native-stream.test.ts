import { readFileSync } from 'node:fs';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { anthropicAdaptor } from '../providers/anthropic/index.js';
import { geminiAdaptor } from '../providers/gemini/index.js';
import { bedrockAdaptor } from '../providers/bedrock/index.js';
import type { Adaptor, NativeFormat } from '../providers/adaptor.js';
import { scrub } from '../pipeline/upstream-error.js';
import {
  claudeChunkFrames,
  converseFrames,
  readBedrockRecording,
} from '../../test-support/bedrock-frames.js';
import { anthropicClient } from '../clients/anthropic/index.js';
import { geminiClient } from '../clients/gemini/index.js';
import type { ClientFormat } from '../clients/client-format.js';
import { UpstreamBody } from '../upstream/upstream-body.js';
import { eventsEnd, nativeStream, type NativeOutcome } from './native-stream.js';
import { StreamRefused } from './stream-opening.js';
import { nativeBreakEvent, streamBreak } from './stream-break.js';

const recorded = (path: string) => readFileSync(new URL(path, import.meta.url));
const ANTHROPIC = recorded('../providers/anthropic/anthropic-stream.recorded.sse');
const ANTHROPIC_ERROR = recorded('../providers/anthropic/anthropic-mid-stream-error.recorded.sse');
const GEMINI = recorded('../providers/gemini/gemini-stream.recorded.sse');

const nativeOf = (adaptor: Adaptor): NativeFormat => {
  const native = adaptor.native?.[0];
  if (!native) throw new Error('no native format');
  return native;
};

/** The client format of each adaptor's native stream. */
const clientOf = (adaptor: Adaptor): ClientFormat =>
  adaptor === geminiAdaptor ? geminiClient : anthropicClient;

/**
 * Relays `pieces` (one per turn of the event loop, as socket reads come) through a native stream;
 * with `breakWith`, the upstream fails with it after the last piece instead of ending.
 */
const run = async (adaptor: Adaptor, pieces: readonly Buffer[], reframed = false, breakWith?: Error) => {
  const body = new UpstreamBody();
  const feed = (index: number) => {
    const piece = pieces[index];
    if (piece === undefined) {
      if (breakWith) body.fail(breakWith);
      else body.end();
    } else {
      body.push(piece);
      setImmediate(() => feed(index + 1));
    }
  };
  setImmediate(() => feed(0));
  let outcome: NativeOutcome | undefined;
  let aborted = false;
  const stream = nativeStream({
    native: nativeOf(adaptor),
    adaptor,
    upstream: { status: 200, headers: {}, body },
    abortUpstream: () => {
      aborted = true;
    },
    onFinish: (finished) => {
      outcome = finished;
    },
    // As native-answers.ts gives it: the format's decoder, scrubbing with the channel's secrets.
    frames: reframed ? nativeOf(adaptor).decodeStream?.((text) => scrub(text, BEDROCK_CHANNEL)) : undefined,
    breakEvent: (error) => nativeBreakEvent(clientOf(adaptor), streamBreak(error)),
  });
  const opened = await stream.open();
  const out: Buffer[] = [];
  // The chunks as the stream answered them (a chunk of whole events is the upstream's own buffer).
  const chunks: Uint8Array[] = [];
  if (opened instanceof Uint8Array) out.push(Buffer.from(opened));
  else
    for (let chunk = await opened.next(); chunk !== undefined; chunk = await opened.next()) {
      chunks.push(chunk);
      out.push(Buffer.from(chunk));
      if (opened.done) break;
    }
  return { bytes: Buffer.concat(out), outcome, aborted, chunks };
};

/** A Bedrock channel whose key (ak|sk|region) an exception quotes. */
const BEDROCK_CHANNEL = {
  id: 1,
  type: CHANNEL_TYPE.aws,
  key: 'AKIDBEDROCK01|bedrock/secret+key/0123456789|us-west-2',
  baseUrl: 'https://bedrock.internal.example',
  config: {},
};
const BEDROCK_SECRET = 'bedrock/secret+key/0123456789';

/** InvokeModelWithResponseStream's recorded events, framed as Bedrock sends them. */
const CLAUDE_EVENTS = readBedrockRecording('bedrock-claude-stream.recorded.json') as { type: string }[];
const BEDROCK_CLAUDE = claudeChunkFrames(CLAUDE_EVENTS);
/** The Anthropic stream the client gets: each event named by its type, its data the frame's bytes unchanged. */
const CLAUDE_SSE = CLAUDE_EVENTS.map(
  (event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`,
).join('');

/** The stream cut in two at `at`. */
const cut = (bytes: Buffer, at: number) => [bytes.subarray(0, at), bytes.subarray(at)];

describe('a native stream (the client’s format is the channel’s own)', () => {
  it('passes Anthropic’s bytes through unchanged and reads the usage, cut at every byte boundary', async () => {
    const whole = await run(anthropicAdaptor, [ANTHROPIC]);
    expect(whole.bytes.equals(ANTHROPIC)).toBe(true);
    expect(whole.outcome?.usage).toEqual({ prompt_tokens: 21, completion_tokens: 24, total_tokens: 45 });
    for (let at = 1; at < ANTHROPIC.length; at += 1) {
      const split = await run(anthropicAdaptor, cut(ANTHROPIC, at));
      expect(split.bytes.equals(ANTHROPIC)).toBe(true);
      expect(split.outcome).toEqual(whole.outcome);
    }
  });

  it('passes Gemini’s bytes through unchanged and reads the usage, cut at every byte boundary', async () => {
    const whole = await run(geminiAdaptor, [GEMINI]);
    expect(whole.bytes.equals(GEMINI)).toBe(true);
    expect(whole.outcome?.usage?.prompt_tokens).toBe(8);
    expect(whole.outcome?.usage?.completion_tokens).toBeGreaterThan(0);
    for (let at = 1; at < GEMINI.length; at += 1) {
      const split = await run(geminiAdaptor, cut(GEMINI, at));
      expect(split.bytes.equals(GEMINI)).toBe(true);
      expect(split.outcome).toEqual(whole.outcome);
    }
  });

  it('marks the usage final only at message_delta, and reads the text of a stream cut before it', async () => {
    const whole = await run(anthropicAdaptor, [ANTHROPIC]);
    expect(whole.outcome?.final).toBe(true);
    const end = ANTHROPIC.indexOf('event: message_delta');
    const cut = await run(anthropicAdaptor, [ANTHROPIC.subarray(0, end)]);
    expect(cut.outcome?.final).toBe(false);
    expect(cut.outcome?.usage?.prompt_tokens).toBe(21);
    expect(cut.outcome?.text).toBe('你好！我是 Claude 🤖。很高兴为你效劳。');
  });

  it('passes an error mid-stream on as it came, billed for what came before', async () => {
    const relayed = await run(anthropicAdaptor, [ANTHROPIC_ERROR]);
    expect(relayed.bytes.equals(ANTHROPIC_ERROR)).toBe(true);
    expect(relayed.outcome?.aborted).toBe(false);
  });

  it('refuses a stream that opens with the provider’s error: nothing answered, the upstream ended', async () => {
    const error = Buffer.from(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
    const refused = await run(anthropicAdaptor, [error]).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(StreamRefused);
    expect((refused as StreamRefused).upstream?.message).toBe('Overloaded');
  });

  it('waits past pings and refuses what is not an event of the format', async () => {
    const garbage = await run(anthropicAdaptor, [Buffer.from('<html>bad gateway</html>')]).catch(
      (caught: unknown) => caught,
    );
    expect(garbage).toBeInstanceOf(StreamRefused);
    const ended = await run(anthropicAdaptor, [Buffer.from('event: ping\ndata: {"type":"ping"}\n\n')]).catch(
      (caught: unknown) => caught,
    );
    expect(ended).toBeInstanceOf(StreamRefused);
  });

  describe('a stream that breaks after it opened', () => {
    const CUT =
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"the upstream broke off ' +
      'in the middle of its answer: the answer is incomplete"}}\n\n';
    const SILENT =
      'event: error\ndata: {"type":"error","error":{"type":"timeout_error","message":"the upstream fell silent ' +
      'in the middle of its answer: the answer is incomplete"}}\n\n';

    it('ends with Anthropic’s error event after the last whole event, wherever the upstream was cut', async () => {
      const opened = ANTHROPIC.indexOf('event: content_block_start');
      for (let at = opened; at < ANTHROPIC.length; at += 7) {
        const sent = ANTHROPIC.subarray(0, at);
        const relayed = await run(
          anthropicAdaptor,
          cut(sent, Math.floor(at / 2)),
          false,
          new Error('other side closed'),
        );
        const text = relayed.bytes.toString('utf8');
        // Never half an event, never message_stop: the whole events that came, then the error event.
        expect(text).toBe(sent.subarray(0, eventsEnd(sent)).toString('utf8') + CUT);
        expect(relayed.outcome).toMatchObject({ aborted: false, usage: { prompt_tokens: 21 } });
      }
    });

    it('says a silent upstream (undici’s idle timeout) timed out, and bills the text that came', async () => {
      const end = ANTHROPIC.indexOf('event: message_delta');
      const relayed = await run(
        anthropicAdaptor,
        [ANTHROPIC.subarray(0, end)],
        false,
        new errors.BodyTimeoutError(),
      );
      expect(relayed.bytes.toString('utf8')).toBe(ANTHROPIC.subarray(0, end).toString('utf8') + SILENT);
      expect(relayed.bytes.toString('utf8')).not.toContain('message_stop');
      expect(relayed.outcome?.text).toBe('你好！我是 Claude 🤖。很高兴为你效劳。');
    });

    it('ends a Gemini stream with Google’s error object', async () => {
      // Google frames its events with CRLF.
      const first = GEMINI.indexOf('\r\n\r\n') + 4;
      const relayed = await run(
        geminiAdaptor,
        [GEMINI.subarray(0, first + 10)],
        false,
        new errors.BodyTimeoutError(),
      );
      expect(relayed.bytes.subarray(0, first).equals(GEMINI.subarray(0, first))).toBe(true);
      const event = relayed.bytes.subarray(first).toString('utf8');
      expect(event.startsWith('data: ') && event.endsWith('\n\n')).toBe(true);
      expect(JSON.parse(event.slice('data: '.length))).toEqual({
        error: {
          code: 504,
          message: 'the upstream fell silent in the middle of its answer: the answer is incomplete',
          status: 'DEADLINE_EXCEEDED',
        },
      });
    });

    it('passes chunks that end on an event’s end without a copy, and holds only an incomplete event', async () => {
      const events = ANTHROPIC.toString('utf8')
        .split('\n\n')
        .slice(0, -1)
        .map((event) => Buffer.from(`${event}\n\n`));
      const relayed = await run(anthropicAdaptor, events);
      expect(relayed.bytes.equals(ANTHROPIC)).toBe(true);
      // The first piece opened the stream (held, then answered); each later one is the upstream's own buffer.
      for (let index = 1; index < events.length; index += 1)
        expect(relayed.chunks[index]).toBe(events[index]);
    });
  });

  describe('a Bedrock Claude stream (AWS’s event stream of Anthropic events), re-framed as Anthropic’s SSE', () => {
    it('sends each chunk’s event with its data as it came and reads the usage, cut at every byte boundary', async () => {
      const whole = await run(bedrockAdaptor, [BEDROCK_CLAUDE], true);
      expect(whole.bytes.toString('utf8')).toBe(CLAUDE_SSE);
      expect(whole.outcome).toEqual({
        usage: { prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 },
        final: true,
        text: '',
        aborted: false,
      });
      for (let at = 1; at < BEDROCK_CLAUDE.length; at += 1) {
        const split = await run(bedrockAdaptor, cut(BEDROCK_CLAUDE, at), true);
        expect(split.bytes.toString('utf8')).toBe(CLAUDE_SSE);
        expect(split.outcome).toEqual(whole.outcome);
      }
    });

    it('sends a stream that comes byte by byte whole, nothing before it opened lost', async () => {
      const bytes = [...BEDROCK_CLAUDE].map((byte) => Buffer.from([byte]));
      const relayed = await run(bedrockAdaptor, bytes, true);
      expect(relayed.bytes.toString('utf8')).toBe(CLAUDE_SSE);
      expect(relayed.outcome?.usage?.completion_tokens).toBe(15);
    });

    it('ends with Anthropic’s error event for an exception mid-stream, its type mapped and the key scrubbed', async () => {
      const broken = Buffer.concat([
        claudeChunkFrames(CLAUDE_EVENTS.slice(0, 3)),
        converseFrames([
          [
            'throttlingException',
            { message: `Too many requests for ${BEDROCK_SECRET} at ${BEDROCK_CHANNEL.baseUrl}` },
            'exception',
          ],
        ]),
      ]);
      for (const at of [1, 100, broken.length - 5]) {
        const relayed = await run(bedrockAdaptor, cut(broken, at), true);
        const text = relayed.bytes.toString('utf8');
        const head = CLAUDE_EVENTS.slice(0, 3)
          .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
          .join('');
        expect(text).toBe(
          head +
            'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error",' +
            '"message":"Too many requests for [redacted] at [upstream]"}}\n\n',
        );
        expect(text).not.toContain(BEDROCK_SECRET);
        // Cut before message_delta: the input as message_start said it, the output counted from the text.
        expect(relayed.outcome).toMatchObject({ final: false, text: 'Hello', usage: { prompt_tokens: 25 } });
      }
    });

    it('maps each of Bedrock’s stream exceptions to Anthropic’s error type', async () => {
      const typeOf = async (exception: string) => {
        const relayed = await run(
          bedrockAdaptor,
          [
            Buffer.concat([
              claudeChunkFrames(CLAUDE_EVENTS.slice(0, 1)),
              converseFrames([[exception, { message: 'failed' }, 'exception']]),
            ]),
          ],
          true,
        );
        const last = relayed.bytes.toString('utf8').split('event: error\ndata: ')[1] ?? '';
        return (JSON.parse(last) as { error: { type: string } }).error.type;
      };
      expect(await typeOf('modelStreamErrorException')).toBe('api_error');
      expect(await typeOf('internalServerException')).toBe('api_error');
      expect(await typeOf('serviceUnavailableException')).toBe('overloaded_error');
      expect(await typeOf('modelTimeoutException')).toBe('timeout_error');
      expect(await typeOf('validationException')).toBe('invalid_request_error');
      expect(await typeOf('somethingNewException')).toBe('api_error');
    });

    it('refuses a stream whose first frame is an exception, or that is not an event stream: nothing answered', async () => {
      const throttled = await run(
        bedrockAdaptor,
        [converseFrames([['throttlingException', { message: `slow down ${BEDROCK_SECRET}` }, 'exception']])],
        true,
      ).catch((caught: unknown) => caught);
      expect(throttled).toBeInstanceOf(StreamRefused);
      expect((throttled as StreamRefused).upstream).toMatchObject({
        type: 'rate_limit_error',
        message: 'slow down [redacted]',
      });
      const garbage = await run(bedrockAdaptor, [Buffer.from('<html>bad gateway</html>')], true).catch(
        (caught: unknown) => caught,
      );
      expect(garbage).toBeInstanceOf(StreamRefused);
      const cutShort = await run(bedrockAdaptor, [BEDROCK_CLAUDE.subarray(0, 40)], true).catch(
        (caught: unknown) => caught,
      );
      expect(cutShort).toBeInstanceOf(StreamRefused);
    });
  });
});

describe('eventsEnd', () => {
  it('finds the end of the last whole event, for every line ending server-sent events allow', () => {
    const at = (text: string) => eventsEnd(Buffer.from(text));
    expect(at('data: 1\n\n')).toBe(9);
    expect(at('data: 1\n\ndata: 2')).toBe(9);
    expect(at('data: 1\n\nevent: x\ndata: 2\n')).toBe(9);
    expect(at('data: 1\r\n\r\ndata: 2')).toBe(11);
    expect(at('data: 1\r\rdata: 2')).toBe(9);
    expect(at('data: 1\n')).toBe(0);
    expect(at('')).toBe(0);
  });
});
