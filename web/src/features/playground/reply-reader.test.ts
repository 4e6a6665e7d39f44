import { describe, expect, it } from 'vitest';
import type { ClientFormat } from './chat-request.js';
import { errorMessageOf, readReplyEvent, type ReplyUsage } from './reply-reader.js';
import { createSseParser } from './sse-parser.js';

/** A whole stream read as the page reads it: the text, the reasoning, the last usage, the error. */
const readStream = (format: ClientFormat, stream: string) => {
  const parser = createSseParser();
  let text = '';
  let reasoning = '';
  let usage: ReplyUsage | undefined;
  let error: string | undefined;
  let done = false;
  for (const event of [...parser.push(stream), ...parser.end()]) {
    const update = readReplyEvent(format, event);
    text += update.text ?? '';
    reasoning += update.reasoning ?? '';
    usage = update.usage ?? usage;
    error = update.error ?? error;
    done ||= update.done === true;
  }
  return { text, reasoning, usage, error, done };
};

const sse = (events: readonly (readonly [string | undefined, unknown])[]) =>
  events
    .map(
      ([name, data]) =>
        `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`,
    )
    .join('');

const chunk = (delta: object, extra: object = {}) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: null }],
  ...extra,
});

describe('readReplyEvent', () => {
  it('reads an OpenAI chat stream: content, reasoning and the usage chunk', () => {
    const stream = sse([
      [undefined, chunk({ role: 'assistant', content: '' }, { usage: null })],
      [undefined, chunk({ reasoning_content: 'think ' })],
      [undefined, chunk({ content: 'Hello ' })],
      [undefined, chunk({ content: 'there' })],
      [
        undefined,
        {
          choices: [],
          usage: {
            prompt_tokens: 30,
            completion_tokens: 4,
            total_tokens: 34,
            prompt_tokens_details: { cached_tokens: 20 },
          },
        },
      ],
      [undefined, '[DONE]'],
    ]);
    expect(readStream('openai', stream)).toEqual({
      text: 'Hello there',
      reasoning: 'think ',
      usage: { promptTokens: 30, completionTokens: 4, cacheReadTokens: 20, cacheWriteTokens: 0 },
      error: undefined,
      done: true,
    });
  });

  it("reads an OpenAI error chunk's message", () => {
    const stream = sse([[undefined, { error: { message: 'upstream failed', type: 'server_error' } }]]);
    expect(readStream('openai', stream).error).toBe('upstream failed');
  });

  it("reads an Anthropic Messages stream: text and thinking deltas, the final usage with the cache's tokens", () => {
    const stream = sse([
      [
        'message_start',
        {
          type: 'message_start',
          message: { usage: { input_tokens: 9, cache_read_input_tokens: 0, output_tokens: 0 } },
        },
      ],
      ['ping', { type: 'ping' }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking' } }],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      ],
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } },
      ],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn' },
          usage: {
            input_tokens: 5,
            output_tokens: 12,
            cache_read_input_tokens: 3,
            cache_creation_input_tokens: 2,
          },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ]);
    expect(readStream('anthropic', stream)).toEqual({
      text: 'Hi',
      reasoning: 'hmm',
      usage: { promptTokens: 10, completionTokens: 12, cacheReadTokens: 3, cacheWriteTokens: 2 },
      error: undefined,
      done: true,
    });
  });

  it('reads an Anthropic error event', () => {
    const stream = sse([
      ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }],
    ]);
    expect(readStream('anthropic', stream).error).toBe('Overloaded');
  });

  it('reads a Responses stream: output text, reasoning summary and the usage of response.completed', () => {
    const stream = sse([
      ['response.created', { type: 'response.created', response: { status: 'in_progress' } }],
      [
        'response.reasoning_summary_text.delta',
        { type: 'response.reasoning_summary_text.delta', delta: 'plan' },
      ],
      ['response.output_text.delta', { type: 'response.output_text.delta', delta: 'Hel' }],
      ['response.output_text.delta', { type: 'response.output_text.delta', delta: 'lo' }],
      ['response.output_text.done', { type: 'response.output_text.done', text: 'Hello' }],
      [
        'response.completed',
        {
          type: 'response.completed',
          response: {
            status: 'completed',
            usage: { input_tokens: 9, output_tokens: 12, input_tokens_details: { cached_tokens: 4 } },
          },
        },
      ],
    ]);
    expect(readStream('responses', stream)).toEqual({
      text: 'Hello',
      reasoning: 'plan',
      usage: { promptTokens: 9, completionTokens: 12, cacheReadTokens: 4, cacheWriteTokens: 0 },
      error: undefined,
      done: true,
    });
  });

  it('reads a failed Responses stream', () => {
    const stream = sse([
      [
        'response.failed',
        { type: 'response.failed', response: { error: { code: 'server_error', message: 'boom' } } },
      ],
    ]);
    expect(readStream('responses', stream)).toMatchObject({ error: 'boom', done: true });
  });

  it('ignores data that is not JSON', () => {
    expect(readStream('openai', 'data: {oops\n\n')).toMatchObject({ text: '', error: undefined });
  });
});

describe('errorMessageOf', () => {
  it("reads a refusal's message in each format, else the body or the status", () => {
    expect(errorMessageOf(401, '{"error":{"message":"invalid key","type":"invalid_request_error"}}')).toBe(
      'invalid key',
    );
    expect(
      errorMessageOf(400, '{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}'),
    ).toBe('bad');
    expect(errorMessageOf(502, 'Bad gateway')).toBe('Bad gateway');
    expect(errorMessageOf(503, '')).toBe('HTTP 503');
  });
});
