import type { ServerResponse } from 'node:http';
import { listenHandler, type Listening } from './listen.js';
import type { RecordedRequest } from './openai-double.js';

export interface AnthropicDouble extends Listening {
  readonly requests: RecordedRequest[];
  /** The key the double accepts in x-api-key; others get Anthropic's 401. */
  readonly key: string;
  /** Answer the next request with this status and Anthropic error body. */
  failNext(status: number, type: string, message: string): void;
  /** The reply text; the tool call the double makes when the request has tools. */
  reply: string;
  /**
   * True (the default): offered tools, the double calls the first one. False: it answers its text
   * anyway, as a model that chose not to call a tool (an agent CLI offers a dozen tools every turn).
   */
  callsTools: boolean;
  /**
   * The usage it reports; the cache fields (reads and writes of Anthropic's prompt cache, apart from
   * `input_tokens`) only when set, as in message_start's usage when it streams.
   */
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
  /** Pause between the pieces of a stream, in ms (0: one turn of the event loop). */
  pieceDelayMs: number;
  /** Set when a streaming client went away before the end. */
  readonly aborted: { value: boolean };
}

const sleep = (ms: number) =>
  new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

interface Turn {
  readonly text: string;
  readonly tool?: { id: string; name: string; input: Record<string, unknown> };
}

/** Calls the first tool when offered tools (and told to) and the last message is not a tool result. */
const turnOf = (body: Record<string, unknown> | undefined, reply: string, callsTools: boolean): Turn => {
  const tools = Array.isArray(body?.['tools']) ? (body['tools'] as { name: string }[]) : [];
  const messages = Array.isArray(body?.['messages']) ? (body['messages'] as { content: unknown }[]) : [];
  const last = messages.at(-1)?.content;
  const result = Array.isArray(last)
    ? (last as { type: string; content?: unknown }[]).find((block) => block.type === 'tool_result')
    : undefined;
  if (result) return { text: `The tool said: ${String(result.content)}` };
  const tool = callsTools ? tools[0] : undefined;
  if (tool)
    return {
      text: 'Let me check.',
      tool: {
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: tool.name,
        input: { location: 'Paris', unit: 'c' },
      },
    };
  return { text: reply };
};

/**
 * A loopback double of Anthropic's Messages API (POST /v1/messages), answering in its documented
 * wire format: a message JSON, or the SSE event sequence (message_start, content blocks with
 * text_delta / input_json_delta, ping, message_delta, message_stop) written in small pieces so
 * events split across reads; errors as `{type:'error', error:{type, message}}`.
 */
export const startAnthropicDouble = async (key = 'sk-ant-secret-key-000'): Promise<AnthropicDouble> => {
  const requests: RecordedRequest[] = [];
  const failures: { status: number; type: string; message: string }[] = [];
  const state = {
    reply: 'Hello! How can I help you today?',
    usage: { input_tokens: 25, output_tokens: 15 } as AnthropicDouble['usage'],
    pieceDelayMs: 0,
    callsTools: true,
  };
  const aborted = { value: false };

  const json = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const error = (response: ServerResponse, status: number, type: string, message: string) =>
    json(response, status, { type: 'error', error: { type, message } });

  const stream = async (response: ServerResponse, model: string, turn: Turn) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.on('close', () => {
      if (!response.writableFinished) aborted.value = true;
    });
    const events: [string, unknown][] = [
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_stream_01',
            type: 'message',
            role: 'assistant',
            content: [],
            model,
            stop_reason: null,
            stop_sequence: null,
            usage: { ...state.usage, output_tokens: 1 },
          },
        },
      ],
      [
        'content_block_start',
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      ],
      ['ping', { type: 'ping' }],
    ];
    for (const word of turn.text.split(/(?<= )/))
      events.push([
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: word } },
      ]);
    events.push(['content_block_stop', { type: 'content_block_stop', index: 0 }]);
    if (turn.tool) {
      const { id, name, input } = turn.tool;
      const args = JSON.stringify(input);
      const half = Math.floor(args.length / 2);
      events.push(
        [
          'content_block_start',
          { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id, name, input: {} } },
        ],
        ...[args.slice(0, half), args.slice(half)].map((partial_json): [string, unknown] => [
          'content_block_delta',
          { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json } },
        ]),
        ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      );
    }
    events.push(
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: turn.tool ? 'tool_use' : 'end_turn', stop_sequence: null },
          usage: { output_tokens: state.usage.output_tokens },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    );
    const text = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
    for (let start = 0; start < text.length; start += 37) {
      if (response.destroyed) return;
      response.write(text.slice(start, start + 37));
      await sleep(state.pieceDelayMs);
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
    const path = (request.url ?? '').split('?')[0] ?? '';
    requests.push({ method: request.method ?? '', path, headers: request.headers, body, json: parsed });
    const failure = failures.shift();
    if (failure) return error(response, failure.status, failure.type, failure.message);
    if (path !== '/v1/messages') return error(response, 404, 'not_found_error', 'Not found');
    if (request.headers['x-api-key'] !== key)
      return error(response, 401, 'authentication_error', 'invalid x-api-key');
    if (!request.headers['anthropic-version'])
      return error(response, 400, 'invalid_request_error', 'anthropic-version: header is required');
    if (typeof parsed?.['max_tokens'] !== 'number')
      return error(response, 400, 'invalid_request_error', 'max_tokens: Field required');
    const model = typeof parsed['model'] === 'string' ? parsed['model'] : 'claude';
    const turn = turnOf(parsed, state.reply, state.callsTools);
    if (parsed['stream'] === true) return stream(response, model, turn);
    json(response, 200, {
      id: 'msg_013Zva2CMHLNnXjNJJKqJ2EF',
      type: 'message',
      role: 'assistant',
      model,
      content: [
        { type: 'text', text: turn.text },
        ...(turn.tool ? [{ type: 'tool_use', ...turn.tool }] : []),
      ],
      stop_reason: turn.tool ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: state.usage,
    });
  });

  return {
    url: server.url,
    close: () => server.close(),
    requests,
    key,
    failNext: (status, type, message) => {
      failures.push({ status, type, message });
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
    get pieceDelayMs() {
      return state.pieceDelayMs;
    },
    set pieceDelayMs(value) {
      state.pieceDelayMs = value;
    },
    aborted,
  };
};
