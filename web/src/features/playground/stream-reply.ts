import { API_BASE } from '../../lib/api-client.js';
import type { ChatRequest, ClientFormat } from './chat-request.js';
import { errorMessageOf, readReplyEvent, type ReplyUsage } from './reply-reader.js';
import { createSseParser } from './sse-parser.js';

/** A reply as it grows, and at its end. */
export interface ReplyProgress {
  readonly text: string;
  readonly reasoning: string;
  readonly usage?: ReplyUsage | undefined;
  readonly error?: string | undefined;
  /** Milliseconds from sending to the answer's first body bytes. */
  readonly firstByteMs?: number | undefined;
  /** Milliseconds from sending to the stream's end (set at the end). */
  readonly totalMs?: number | undefined;
  /** The user stopped it. */
  readonly stopped?: boolean | undefined;
  /** Sluice's id of the request (`x-sluice-request-id`): its row in the user's log. */
  readonly requestId?: string | undefined;
}

export interface StreamOptions {
  readonly format: ClientFormat;
  readonly request: ChatRequest;
  readonly signal: AbortSignal;
  readonly onProgress: (progress: ReplyProgress) => void;
  readonly now?: () => number;
  readonly fetcher?: typeof fetch;
}

const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

/**
 * Sends a streamed chat request to Sluice's /v1 and reads its server-sent events as the client
 * format defines them, reporting the reply after every chunk. A stop (the signal) ends the fetch,
 * which closes the connection: Sluice then aborts its upstream call. Never throws: a refusal, a
 * network failure or an error event ends the reply with `error`.
 */
export const streamReply = async (options: StreamOptions): Promise<ReplyProgress> => {
  const now = options.now ?? (() => performance.now());
  const started = now();
  let reply: ReplyProgress = { text: '', reasoning: '' };
  const report = (next: Partial<ReplyProgress>) => {
    reply = { ...reply, ...next };
    options.onProgress(reply);
  };
  const finish = (next: Partial<ReplyProgress>) => {
    report({ ...next, totalMs: now() - started });
    return reply;
  };
  try {
    const response = await (options.fetcher ?? fetch)(`${API_BASE}${options.request.path}`, {
      method: 'POST',
      headers: options.request.headers,
      body: JSON.stringify(options.request.body),
      signal: options.signal,
    });
    reply = { ...reply, requestId: response.headers.get('x-sluice-request-id') ?? undefined };
    if (!response.ok || !response.body) {
      const body = await response.text();
      return finish({ firstByteMs: now() - started, error: errorMessageOf(response.status, body) });
    }
    const parser = createSseParser();
    const decoder = new TextDecoder();
    const reader = response.body.getReader();
    const apply = (events: ReturnType<typeof parser.push>) => {
      let { text, reasoning, usage, error } = reply;
      for (const event of events) {
        const update = readReplyEvent(options.format, event);
        text += update.text ?? '';
        reasoning += update.reasoning ?? '';
        usage = update.usage ?? usage;
        error = update.error ?? error;
      }
      if (events.length > 0) report({ text, reasoning, usage, error });
    };
    for (;;) {
      const chunk = await reader.read();
      if (reply.firstByteMs === undefined) reply = { ...reply, firstByteMs: now() - started };
      if (chunk.done) break;
      apply(parser.push(decoder.decode(chunk.value, { stream: true })));
    }
    apply(parser.end());
    return finish({});
  } catch (error) {
    if (isAbort(error) || options.signal.aborted) return finish({ stopped: true });
    return finish({ error: error instanceof Error ? error.message : String(error) });
  }
};
