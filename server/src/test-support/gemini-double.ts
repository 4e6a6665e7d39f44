import type { ServerResponse } from 'node:http';
import { listenHandler, type Listening } from './listen.js';
import type { RecordedRequest } from './openai-double.js';

export interface GeminiDouble extends Listening {
  readonly requests: RecordedRequest[];
  /** The key the double accepts in x-goog-api-key; others get Gemini's 400 API_KEY_INVALID. */
  readonly key: string;
  /** Answer the next request with this status and Gemini error body. */
  failNext(status: number, grpcStatus: string, message: string): void;
  reply: string;
  /**
   * True (the default): offered functions, the double calls the first one. False: it answers its
   * text anyway, as a model that chose not to call one (an agent CLI declares its tools every turn).
   */
  callsTools: boolean;
  /**
   * The usage it reports; `cachedContentTokenCount` (of the prompt, read from the cache) and
   * `thoughtsTokenCount` only when set, as Gemini reports them.
   */
  usage: {
    promptTokenCount: number;
    candidatesTokenCount: number;
    cachedContentTokenCount?: number;
    thoughtsTokenCount?: number;
  };
  /** The vector every embedding request gets, per input. */
  readonly vector: readonly number[];
}

const sleep = () => new Promise((resolve) => setImmediate(resolve));

type Part = Record<string, unknown>;

/** Calls the first declared function (when told to) unless the last turn carries a functionResponse. */
const partsOf = (body: Record<string, unknown> | undefined, reply: string, callsTools: boolean): Part[] => {
  const contents = Array.isArray(body?.['contents']) ? (body['contents'] as { parts?: Part[] }[]) : [];
  const last = contents.at(-1)?.parts ?? [];
  const answer = last.find((part) => part['functionResponse'] !== undefined)?.['functionResponse'] as
    { name: string; response: unknown } | undefined;
  if (answer) return [{ text: `${answer.name} said ${JSON.stringify(answer.response)}` }];
  const tools = Array.isArray(body?.['tools'])
    ? (body['tools'] as { functionDeclarations?: { name: string }[] }[])
    : [];
  const declared = callsTools ? tools[0]?.functionDeclarations?.[0] : undefined;
  if (declared) return [{ functionCall: { name: declared.name, args: { location: 'Paris', unit: 'c' } } }];
  return [{ text: reply }];
};

/**
 * A loopback double of Google's Gemini API, answering in its documented wire format:
 * `/<version>/models/<model>:generateContent` (JSON), `:streamGenerateContent?alt=sse` (one
 * GenerateContentResponse per `data:` event, CRLF line ends, written in small pieces) and
 * `:batchEmbedContents`; errors as `{error:{code, message, status}}`.
 */
export const startGeminiDouble = async (key = 'AIza-secret-key-000'): Promise<GeminiDouble> => {
  const requests: RecordedRequest[] = [];
  const failures: { status: number; grpcStatus: string; message: string }[] = [];
  const vector = [0.013168523, -0.008711934, -0.046782676];
  const state = {
    reply: 'The quick brown fox jumps over the lazy dog.',
    usage: { promptTokenCount: 8, candidatesTokenCount: 10 } as GeminiDouble['usage'],
    callsTools: true,
  };

  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
    response.end(JSON.stringify(body));
  };
  const error = (response: ServerResponse, status: number, grpcStatus: string, message: string) =>
    json(response, status, { error: { code: status, message, status: grpcStatus } });

  const usageMetadata = (final: boolean) => {
    const { promptTokenCount, candidatesTokenCount, cachedContentTokenCount, thoughtsTokenCount } =
      state.usage;
    return {
      promptTokenCount,
      ...(final ? { candidatesTokenCount } : {}),
      ...(cachedContentTokenCount === undefined ? {} : { cachedContentTokenCount }),
      ...(final && thoughtsTokenCount !== undefined ? { thoughtsTokenCount } : {}),
      totalTokenCount: promptTokenCount + (final ? candidatesTokenCount + (thoughtsTokenCount ?? 0) : 0),
    };
  };

  const stream = async (response: ServerResponse, model: string, parts: Part[]) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'x-content-type-options': 'nosniff' });
    const pieces: Part[][] =
      typeof parts[0]?.['text'] === 'string'
        ? String(parts[0]['text'])
            .split(/(?<= )/)
            .map((text) => [{ text }])
        : [parts];
    const events = pieces.map((piece, index) => {
      const final = index === pieces.length - 1;
      return {
        candidates: [
          { content: { parts: piece, role: 'model' }, ...(final ? { finishReason: 'STOP' } : {}), index: 0 },
        ],
        usageMetadata: usageMetadata(final),
        modelVersion: model,
        responseId: 'gemini-stream-1',
      };
    });
    const text = events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join('');
    for (let start = 0; start < text.length; start += 41) {
      if (response.destroyed) return;
      response.write(text.slice(start, start + 41));
      await sleep();
    }
    response.end();
  };

  const server = await listenHandler(async (request, body, response) => {
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    const [path = '', query = ''] = (request.url ?? '').split('?');
    requests.push({ method: request.method ?? '', path, headers: request.headers, body, json: parsed });
    const failure = failures.shift();
    if (failure) return error(response, failure.status, failure.grpcStatus, failure.message);
    const match = /^\/(v1|v1beta)\/models\/([^/:]+):(\w+)$/.exec(path);
    if (!match) return error(response, 404, 'NOT_FOUND', `Path ${path} not found`);
    if (request.headers['x-goog-api-key'] !== key)
      return error(response, 400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    const model = decodeURIComponent(match[2] ?? '');
    const action = match[3];
    if (action === 'batchEmbedContents') {
      const batch = Array.isArray(parsed?.['requests']) ? parsed['requests'] : [];
      return json(response, 200, { embeddings: batch.map(() => ({ values: vector })) });
    }
    const parts = partsOf(parsed, state.reply, state.callsTools);
    if (action === 'streamGenerateContent' && query.includes('alt=sse'))
      return stream(response, model, parts);
    if (action !== 'generateContent') return error(response, 404, 'NOT_FOUND', `unknown action ${action}`);
    json(response, 200, {
      candidates: [{ content: { parts, role: 'model' }, finishReason: 'STOP', avgLogprobs: -0.1 }],
      usageMetadata: usageMetadata(true),
      modelVersion: model,
      responseId: 'gemini-response-1',
    });
  });

  return {
    url: server.url,
    close: () => server.close(),
    requests,
    key,
    vector,
    failNext: (status, grpcStatus, message) => {
      failures.push({ status, grpcStatus, message });
    },
    get reply() {
      return state.reply;
    },
    set reply(value) {
      state.reply = value;
    },
    get usage() {
      return state.usage;
    },
    set usage(value) {
      state.usage = value;
    },
    get callsTools() {
      return state.callsTools;
    },
    set callsTools(value) {
      state.callsTools = value;
    },
  };
};
