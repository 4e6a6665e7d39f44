import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta, replayStream } from '../../../test-support/stream-replay.js';
import { anthropicAdaptor } from './anthropic-adaptor.js';
import { anthropicNative } from './anthropic-native.js';

const meta = (stream = false) =>
  fixtureMeta(
    { type: CHANNEL_TYPE.anthropic, baseUrl: 'https://api.anthropic.com', key: 'sk-ant-key' },
    { model: 'claude-sonnet-4-20250514', stream },
  );

/** The usage Anthropic documents for a request that reads and writes its prompt cache. */
const CACHED_USAGE = {
  input_tokens: 50,
  cache_creation_input_tokens: 248,
  cache_read_input_tokens: 1800,
  output_tokens: 503,
};

/** Every input token in the prompt; reads and writes said apart (the hub's and the price's terms). */
const BILLED = {
  prompt_tokens: 2098,
  completion_tokens: 503,
  total_tokens: 2601,
  prompt_tokens_details: { cached_tokens: 1800, cache_creation_tokens: 248 },
};

const message = {
  id: 'msg_01',
  type: 'message',
  role: 'assistant',
  content: [{ type: 'text', text: 'Hi' }],
  stop_reason: 'end_turn',
  usage: CACHED_USAGE,
};

const sse = (events: [string, unknown][]) =>
  events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');

const stream = (deltaUsage: Record<string, number>) =>
  sse([
    [
      'message_start',
      {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, usage: { ...CACHED_USAGE, output_tokens: 1 } },
      },
    ],
    [
      'content_block_start',
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ],
    [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: deltaUsage }],
    ['message_stop', { type: 'message_stop' }],
  ]);

describe('Anthropic cache reads and writes', () => {
  it('are said apart in the translated answer’s usage (which the client formats report)', () => {
    const parsed = anthropicAdaptor.parseResponse(message, meta());
    expect(parsed.usage).toEqual(BILLED);
    expect((parsed.body as { usage: unknown }).usage).toEqual(BILLED);
  });

  it('come from message_start in a translated stream, whatever message_delta says of the output', () => {
    expect(replayStream(anthropicAdaptor, meta(true), [stream({ output_tokens: 503 })]).usage).toEqual(
      BILLED,
    );
    // Newer models repeat the cumulative input counts in message_delta.
    expect(replayStream(anthropicAdaptor, meta(true), [stream(CACHED_USAGE)]).usage).toEqual(BILLED);
  });

  it('are read from a native answer and a native stream', () => {
    expect(anthropicNative.readAnswer(message).usage).toEqual(BILLED);
    const tap = anthropicNative.streamTap();
    let usage: unknown;
    const body = stream({ output_tokens: 503 });
    for (const block of body.split('\n\n').filter(Boolean)) {
      const [event = '', data = ''] = block.split('\n').map((line) => line.slice(line.indexOf(': ') + 2));
      const step = tap({ event, data });
      if (step.usage) usage = step.usage;
    }
    expect(usage).toEqual(BILLED);
  });

  it('leave a usage without cache tokens as it was', () => {
    const plain = { ...message, usage: { input_tokens: 10, output_tokens: 5 } };
    expect(anthropicAdaptor.parseResponse(plain, meta()).usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
    });
    expect(
      anthropicNative.readAnswer({
        ...plain,
        usage: { ...CACHED_USAGE, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      }).usage,
    ).toEqual({
      prompt_tokens: 50,
      completion_tokens: 503,
      total_tokens: 553,
    });
  });
});
