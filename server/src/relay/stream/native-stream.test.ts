import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anthropicAdaptor } from '../providers/anthropic/index.js';
import { geminiAdaptor } from '../providers/gemini/index.js';
import type { Adaptor, NativeFormat } from '../providers/adaptor.js';
import { UpstreamBody } from '../upstream/upstream-body.js';
import { nativeStream, type NativeOutcome } from './native-stream.js';
import { StreamRefused } from './stream-opening.js';

const recorded = (path: string) => readFileSync(new URL(path, import.meta.url));
const ANTHROPIC = recorded('../providers/anthropic/anthropic-stream.recorded.sse');
const ANTHROPIC_ERROR = recorded('../providers/anthropic/anthropic-mid-stream-error.recorded.sse');
const GEMINI = recorded('../providers/gemini/gemini-stream.recorded.sse');

const nativeOf = (adaptor: Adaptor): NativeFormat => {
  const native = adaptor.native?.[0];
  if (!native) throw new Error('no native format');
  return native;
};

/** Relays `pieces` (one per turn of the event loop, as socket reads come) through a native stream. */
const run = async (adaptor: Adaptor, pieces: readonly Buffer[]) => {
  const body = new UpstreamBody();
  const feed = (index: number) => {
    const piece = pieces[index];
    if (piece === undefined) body.end();
    else {
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
  });
  const opened = await stream.open();
  const out: Buffer[] = [];
  if (opened instanceof Uint8Array) out.push(Buffer.from(opened));
  else
    for (let chunk = await opened.next(); chunk !== undefined; chunk = await opened.next())
      out.push(Buffer.from(chunk));
  return { bytes: Buffer.concat(out), outcome, aborted };
};

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
});
