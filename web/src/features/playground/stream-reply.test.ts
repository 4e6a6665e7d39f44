import { describe, expect, it } from 'vitest';
import { buildChatRequest } from './chat-request.js';
import { streamReply, type ReplyProgress } from './stream-reply.js';

const encoder = new TextEncoder();
const REQUEST = buildChatRequest(
  { format: 'openai', model: 'gpt-4o', system: '' },
  [{ role: 'user', text: 'Hi' }],
  'sk-k',
);

/** A clock the test moves: each call answers the next tick. */
const clock =
  (...ticks: number[]) =>
  () =>
    ticks.shift() ?? 0;

/** A fetch answering a stream of `pieces`, one per read, that ends unless `open`. */
const fetchStream =
  (pieces: string[], open = false): typeof fetch =>
  (_input, init) =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            const piece = pieces.shift();
            if (piece !== undefined) controller.enqueue(encoder.encode(piece));
            else if (!open) controller.close();
            else
              init?.signal?.addEventListener('abort', () =>
                controller.error(new DOMException('aborted', 'AbortError')),
              );
          },
        }),
        { status: 200, headers: { 'content-type': 'text/event-stream' } },
      ),
    );

describe('streamReply', () => {
  it('grows the reply chunk by chunk and ends with the usage, first-byte and total times', async () => {
    const seen: string[] = [];
    const reply = await streamReply({
      format: 'openai',
      request: REQUEST,
      signal: new AbortController().signal,
      onProgress: (progress) => seen.push(progress.text),
      now: clock(100, 150, 400),
      fetcher: fetchStream([
        'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"del',
        'ta":{"content":"lo"}}]}\n\ndata: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2}}\n\n',
        'data: [DONE]\n\n',
      ]),
    });
    expect(seen).toEqual(['Hel', 'Hello', 'Hello', 'Hello']);
    expect(reply).toEqual<ReplyProgress>({
      text: 'Hello',
      reasoning: '',
      usage: { promptTokens: 9, completionTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 },
      error: undefined,
      firstByteMs: 50,
      totalMs: 300,
    });
  });

  it('ends a stopped reply with what arrived, marked stopped', async () => {
    const controller = new AbortController();
    const reply = await streamReply({
      format: 'openai',
      request: REQUEST,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.text === 'Hel') controller.abort();
      },
      fetcher: fetchStream(['data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n'], true),
    });
    expect(reply).toMatchObject({ text: 'Hel', stopped: true });
    expect(reply.totalMs).toBeGreaterThanOrEqual(0);
  });

  it("ends a refused request with the server's message", async () => {
    const reply = await streamReply({
      format: 'openai',
      request: REQUEST,
      signal: new AbortController().signal,
      onProgress: () => undefined,
      fetcher: () =>
        Promise.resolve(
          new Response('{"error":{"message":"model not allowed","type":"invalid_request_error"}}', {
            status: 403,
          }),
        ),
    });
    expect(reply).toMatchObject({ text: '', error: 'model not allowed' });
  });

  it('ends a request that never reached the server with the network error', async () => {
    const reply = await streamReply({
      format: 'anthropic',
      request: REQUEST,
      signal: new AbortController().signal,
      onProgress: () => undefined,
      fetcher: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    expect(reply).toMatchObject({ error: 'Failed to fetch' });
  });
});
