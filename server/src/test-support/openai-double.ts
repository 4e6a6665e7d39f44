import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { listenHandler, type Listening } from './listen.js';
import { answerResponses } from './openai-responses-double.js';

/** What the double received. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly json: Record<string, unknown> | undefined;
}

export interface OpenAiDouble extends Listening {
  readonly requests: RecordedRequest[];
  /** Answer the next N requests with this status and OpenAI error body. */
  failNext(count: number, status: number, message?: string): void;
  /** Answer the next N requests with 200 and the start of a body (or none), then drop the connection. */
  breakNext(count: number, withBytes?: boolean): void;
  /**
   * Usage the double reports; `undefined` makes it omit usage entirely. `cached_tokens` (of the
   * prompt tokens, read from OpenAI's prompt cache) adds `prompt_tokens_details` as OpenAI reports it
   * (chat) and `input_tokens_details.cached_tokens` (Responses).
   */
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number } | undefined;
  /** The reply text of chat completions. */
  reply: string;
  /** Delay between stream chunks, in ms. */
  chunkDelayMs: number;
  /** When set, a stream's first chunk (or speech's first bytes) is sent, then the rest waits for this promise. */
  gate: Promise<void> | undefined;
  /** When set, every request waits for this promise before it is answered. */
  hold: Promise<void> | undefined;
  /** Sends a whole stream in one write with its end (as a fast upstream's answer arrives). */
  streamInOneWrite: boolean;
  /** Set when a streaming client went away before the end. */
  readonly aborted: { value: boolean };
}

/** A queued "failure" that answers 200 and breaks off in the middle of the body. */
const BROKEN = -1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const usageOf = (usage: OpenAiDouble['usage']) =>
  usage && {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    ...(usage.cached_tokens === undefined
      ? {}
      : { prompt_tokens_details: { cached_tokens: usage.cached_tokens, audio_tokens: 0 } }),
  };

/**
 * A loopback double of OpenAI's API, answering in OpenAI's documented wire format: chat completions
 * (JSON, and SSE streams whose final usage chunk comes only with stream_options.include_usage),
 * completions, embeddings, moderations, images, speech and transcriptions; the Responses API
 * (openai-responses-double.ts).
 */
export const startOpenAiDouble = async (): Promise<OpenAiDouble> => {
  const requests: RecordedRequest[] = [];
  const failures: { status: number; message: string }[] = [];
  const aborted = { value: false };
  const state = {
    usage: { prompt_tokens: 9, completion_tokens: 12 } as OpenAiDouble['usage'],
    reply: 'Hello there, how may I assist you today?',
    chunkDelayMs: 0,
    gate: undefined as Promise<void> | undefined,
    hold: undefined as Promise<void> | undefined,
    streamInOneWrite: false,
  };

  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const streamChat = async (response: ServerResponse, model: string, includeUsage: boolean) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.on('close', () => {
      if (!response.writableEnded) aborted.value = true;
    });
    const base = {
      id: 'chatcmpl-123',
      object: 'chat.completion.chunk',
      created: 1694268190,
      model,
      system_fingerprint: 'fp_44709d6fcb',
    };
    const extra = includeUsage ? { usage: null } : {};
    const words = state.reply.split(/(?<= )/);
    let whole = '';
    const send = (chunk: unknown) => {
      const event = `data: ${JSON.stringify(chunk)}\n\n`;
      if (state.streamInOneWrite) whole += event;
      else response.write(event);
    };
    send({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      ...extra,
    });
    if (state.gate) await state.gate;
    for (const word of words) {
      if (response.destroyed) return;
      if (state.chunkDelayMs > 0) await sleep(state.chunkDelayMs);
      send({
        ...base,
        choices: [{ index: 0, delta: { content: word }, logprobs: null, finish_reason: null }],
        ...extra,
      });
    }
    send({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], ...extra });
    if (includeUsage && state.usage) send({ ...base, choices: [], usage: usageOf(state.usage) });
    if (state.streamInOneWrite) response.end(`${whole}data: [DONE]\n\n`);
    else {
      response.write('data: [DONE]\n\n');
      response.end();
    }
  };

  const server = await listenHandler(async (request, body, response) => {
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const path = (request.url ?? '').split('?')[0] ?? '';
    requests.push({ method: request.method ?? '', path, headers: request.headers, body, json: parsed });
    if (state.hold) await state.hold;
    const failure = failures.shift();
    if (failure?.status === BROKEN) {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': 4096 });
      if (failure.message === 'no bytes') response.flushHeaders();
      else response.write('{"id":"chatcmpl-123","object":"chat.com');
      setTimeout(() => response.socket?.destroy(), 20);
      return;
    }
    if (failure) {
      json(response, failure.status, {
        error: { message: failure.message, type: 'server_error', param: null, code: null },
      });
      return;
    }
    if (path.endsWith('/dashboard/billing/subscription'))
      return json(response, 200, {
        object: 'billing_subscription',
        has_payment_method: true,
        hard_limit_usd: 100,
        soft_limit_usd: 80,
        system_hard_limit_usd: 100,
        access_until: 0,
      });
    if (path.endsWith('/dashboard/billing/usage'))
      return json(response, 200, { object: 'list', total_usage: 1234.5 });
    const model = typeof parsed?.['model'] === 'string' ? parsed['model'] : 'gpt-3.5-turbo';
    if (path.endsWith('/v1/responses')) return answerResponses(response, parsed, state);
    if (path.endsWith('/chat/completions')) {
      const options = parsed?.['stream_options'] as { include_usage?: boolean } | undefined;
      if (parsed?.['stream'] === true) return streamChat(response, model, options?.include_usage === true);
      return json(response, 200, {
        id: 'chatcmpl-123',
        object: 'chat.completion',
        created: 1677652288,
        model,
        system_fingerprint: 'fp_44709d6fcb',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: state.reply },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        ...(state.usage ? { usage: usageOf(state.usage) } : {}),
      });
    }
    if (path.endsWith('/completions'))
      return json(response, 200, {
        id: 'cmpl-123',
        object: 'text_completion',
        created: 1589478378,
        model,
        choices: [{ text: state.reply, index: 0, logprobs: null, finish_reason: 'length' }],
        ...(state.usage ? { usage: usageOf(state.usage) } : {}),
      });
    if (path.endsWith('/embeddings'))
      return json(response, 200, {
        object: 'list',
        data: [{ object: 'embedding', embedding: [0.0023064255, -0.009327292, -0.0028842222], index: 0 }],
        model,
        usage: { prompt_tokens: 8, total_tokens: 8 },
      });
    if (path.endsWith('/moderations'))
      return json(response, 200, {
        id: 'modr-123',
        model,
        results: [{ flagged: false, categories: {}, category_scores: {} }],
      });
    if (path.endsWith('/images/generations'))
      return json(response, 200, {
        created: 1589478378,
        data: [{ url: 'https://example.invalid/image.png', revised_prompt: 'a cat' }],
      });
    if (path.endsWith('/audio/speech')) {
      response.writeHead(200, { 'content-type': 'audio/mpeg' });
      if (state.gate) {
        // The first frames, then the rest once the gate opens (as a TTS upstream streams audio).
        response.write(Buffer.from('ID3fake-'));
        await state.gate;
        response.end(Buffer.from('mp3-bytes'));
        return;
      }
      response.end(Buffer.from('ID3fake-mp3-bytes'));
      return;
    }
    if (path.endsWith('/audio/transcriptions') || path.endsWith('/audio/translations'))
      return json(response, 200, { text: 'Imagine the wildest idea that you have ever had.' });
    json(response, 404, {
      error: {
        message: `Invalid URL (POST ${path})`,
        type: 'invalid_request_error',
        param: null,
        code: null,
      },
    });
  });

  return {
    url: server.url,
    close: () => server.close(),
    requests,
    aborted,
    failNext: (count, status, message = 'The server had an error while processing your request.') => {
      for (let index = 0; index < count; index += 1) failures.push({ status, message });
    },
    breakNext: (count, withBytes = true) => {
      for (let index = 0; index < count; index += 1)
        failures.push({ status: BROKEN, message: withBytes ? '' : 'no bytes' });
    },
    get usage() {
      return state.usage;
    },
    set usage(value) {
      state.usage = value;
    },
    get reply() {
      return state.reply;
    },
    set reply(value) {
      state.reply = value;
    },
    get chunkDelayMs() {
      return state.chunkDelayMs;
    },
    set chunkDelayMs(value) {
      state.chunkDelayMs = value;
    },
    get gate() {
      return state.gate;
    },
    get streamInOneWrite() {
      return state.streamInOneWrite;
    },
    set streamInOneWrite(value) {
      state.streamInOneWrite = value;
    },
    set gate(value) {
      state.gate = value;
    },
    get hold() {
      return state.hold;
    },
    set hold(value) {
      state.hold = value;
    },
  };
};
