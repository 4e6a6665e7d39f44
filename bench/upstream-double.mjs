/**
 * The benchmark's upstream: a minimal loopback double of OpenAI's chat completions, in its own
 * process (started by run-bench.mjs, which reads its port from the first IPC message).
 * - POST …/chat/completions → the chat.completion JSON with usage;
 * - with "stream": true → SSE chunks (role, words, finish), then a usage chunk when
 *   stream_options.include_usage is true, then `data: [DONE]`;
 * - POST …/v1/messages → Anthropic's Messages stream of the same words (every request streams);
 * - a model ending in `-slow` streams its events 10 ms apart, one ending in `-long` answers 400;
 * - POST /model/{id}/converse-stream → AWS Bedrock's ConverseStream answer of the same words, in
 *   AWS's binary event stream (frames made by the AWS SDK's own codec). The SigV4 signature is not
 *   checked here (the tests' double does); its headers must be there.
 * It does the least work it can: no validation beyond the fields it reads, answers prebuilt.
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const REPLY = 'Hello there, how may I assist you today?';
const USAGE = { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 };
const CREATED = 1694268190;

/** @type {Map<string, Buffer>} */
const completions = new Map();

/**
 * The non-stream answer for a model, built once.
 * @param {string} model
 * @returns {Buffer}
 */
const completionFor = (model) => {
  let body = completions.get(model);
  if (!body) {
    body = Buffer.from(
      JSON.stringify({
        id: 'chatcmpl-bench',
        object: 'chat.completion',
        created: CREATED,
        model,
        system_fingerprint: 'fp_bench',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: REPLY },
            logprobs: null,
            finish_reason: 'stop',
          },
        ],
        usage: USAGE,
      }),
    );
    completions.set(model, body);
  }
  return body;
};

/** The words of a `…-long` model's answer: the reply 50 times (400 events), for the soak. */
const LONG_REPLY = Array.from({ length: 50 }, () => REPLY).join(' ');

/**
 * The SSE events of a streamed answer, one string per event.
 * @param {string} model
 * @param {boolean} includeUsage
 * @returns {string[]}
 */
const streamEvents = (model, includeUsage) => {
  const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model };
  const extra = includeUsage ? { usage: null } : {};
  /** @param {unknown} delta @param {string | null} finish */
  const chunk = (delta, finish) =>
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra })}\n\n`;
  const events = [chunk({ role: 'assistant', content: '' }, null)];
  for (const word of (model.endsWith('-long') ? LONG_REPLY : REPLY).split(/(?<= )/))
    events.push(chunk({ content: word }, null));
  events.push(chunk({}, 'stop'));
  if (includeUsage) events.push(`data: ${JSON.stringify({ ...base, choices: [], usage: USAGE })}\n\n`);
  events.push('data: [DONE]\n\n');
  return events;
};

/**
 * Anthropic's Messages stream for a model (its documented event sequence, the same words), one
 * string per event.
 * @param {string} model
 * @returns {string[]}
 */
const messageEvents = (model) => {
  /** @param {string} name @param {unknown} data */
  const event = (name, data) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const message = { id: 'msg_bench', type: 'message', role: 'assistant', content: [], model };
  const events = [
    event('message_start', {
      type: 'message_start',
      message: {
        ...message,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 9, output_tokens: 1 },
      },
    }),
    event('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    event('ping', { type: 'ping' }),
  ];
  for (const word of REPLY.split(/(?<= )/))
    events.push(
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: word },
      }),
    );
  events.push(
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 12 },
    }),
    event('message_stop', { type: 'message_stop' }),
  );
  return events;
};

/**
 * Bedrock's ConverseStream answer, as AWS frames it: messageStart, a contentBlockDelta per word,
 * contentBlockStop, messageStop, then metadata with the usage.
 * @returns {Buffer}
 */
const converseStream = () => {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  /** @param {string} type @param {unknown} payload */
  const frame = (type, payload) =>
    codec.encode({
      headers: {
        ':event-type': { type: 'string', value: type },
        ':content-type': { type: 'string', value: 'application/json' },
        ':message-type': { type: 'string', value: 'event' },
      },
      body: fromUtf8(JSON.stringify(payload)),
    });
  const frames = [frame('messageStart', { role: 'assistant', p: 'abcdefgh' })];
  for (const word of REPLY.split(/(?<= )/))
    frames.push(frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: word }, p: 'abcd' }));
  frames.push(
    frame('contentBlockStop', { contentBlockIndex: 0, p: 'abcdefghij' }),
    frame('messageStop', { stopReason: 'end_turn', p: 'abcdef' }),
    frame('metadata', {
      usage: { inputTokens: USAGE.prompt_tokens, outputTokens: USAGE.completion_tokens, totalTokens: 21 },
      metrics: { latencyMs: 120 },
      p: 'abc',
    }),
  );
  return Buffer.concat(frames.map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
};
const CONVERSE_STREAM = converseStream();
const CONVERSE_PATH = /^\/model\/[^/]+\/converse-stream$/;

/** @type {Map<string, string[]>} */
const streams = new Map();

/**
 * @param {string} model
 * @param {boolean} includeUsage
 * @returns {string[]}
 */
const eventsFor = (model, includeUsage) => {
  const key = `${includeUsage ? 1 : 0}${model}`;
  let events = streams.get(key);
  if (!events) {
    events = streamEvents(model, includeUsage);
    streams.set(key, events);
  }
  return events;
};

/**
 * @typedef {object} ChatBody
 * @property {unknown} [model]
 * @property {unknown} [stream]
 * @property {{ include_usage?: unknown } | null} [stream_options]
 */

/**
 * @param {Buffer} raw
 * @returns {ChatBody}
 */
const parse = (raw) => {
  try {
    const value = /** @type {unknown} */ (JSON.parse(raw.toString('utf8')));
    return typeof value === 'object' && value !== null ? /** @type {ChatBody} */ (value) : {};
  } catch {
    return {};
  }
};

const server = createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
  /** @type {Buffer[]} */
  const parts = [];
  request.on('data', (/** @type {Buffer} */ part) => parts.push(part));
  request.on('end', () => {
    const url = request.url ?? '';
    if (request.method === 'POST' && url.endsWith('/v1/messages')) {
      const body = parse(Buffer.concat(parts));
      const model = typeof body.model === 'string' ? body.model : 'claude-bench';
      const key = `anthropic${model}`;
      let events = streams.get(key);
      if (!events) {
        events = messageEvents(model);
        streams.set(key, events);
      }
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const event of events) response.write(event);
      response.end();
      return;
    }
    if (request.method === 'POST' && CONVERSE_PATH.test(url)) {
      if (!String(request.headers['authorization'] ?? '').startsWith('AWS4-HMAC-SHA256 Credential=')) {
        response.writeHead(403, {
          'content-type': 'application/json',
          'x-amzn-errortype': 'MissingAuthenticationTokenException',
        });
        response.end('{"message":"Missing Authentication Token"}');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
      response.end(CONVERSE_STREAM);
      return;
    }
    if (request.method !== 'POST' || !url.endsWith('/chat/completions')) {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
      return;
    }
    const body = parse(Buffer.concat(parts));
    const model = typeof body.model === 'string' ? body.model : 'gpt-3.5-turbo';
    if (body.stream === true && model.endsWith('-slow')) {
      // A slow upstream: each event 10 ms after the last (the bench's jitter measurement).
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const events = eventsFor(model, body.stream_options?.include_usage === true);
      let next = 0;
      const send = () => {
        const event = events[next];
        next += 1;
        if (event === undefined) response.end();
        else {
          response.write(event);
          setTimeout(send, 10);
        }
      };
      send();
      return;
    }
    if (body.stream === true) {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const events = eventsFor(model, body.stream_options?.include_usage === true);
      for (const event of events) response.write(event);
      response.end();
      return;
    }
    const payload = completionFor(model);
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': payload.length });
    response.end(payload);
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.send?.({ port });
});
process.on('SIGTERM', () => process.exit(0));
