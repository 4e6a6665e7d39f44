import type { IncomingMessage, ServerResponse } from 'node:http';
import { claudeMessage, claudeStreamEvents } from './bedrock-claude-answers.js';
import { claudeChunkFrames, converseFrames, type RecordedFrame } from './bedrock-frames.js';
import { listenHandler, type Listening } from './listen.js';
import { verifySigV4 } from './sigv4-verify.js';

export interface BedrockRequest {
  readonly path: string;
  readonly modelId: string;
  readonly operation: string;
  readonly body: Record<string, unknown>;
  /** The body's bytes as they came (UTF-8). */
  readonly raw: string;
  readonly headers: IncomingMessage['headers'];
}

export interface BedrockDouble extends Listening {
  readonly requests: BedrockRequest[];
  /** The access key pair the double accepts (SigV4 verified with the secret); the channel key `ak|sk|region`. */
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly region: string;
  readonly channelKey: string;
  /** Answer the next request with this status, x-amzn-ErrorType and `{message}`. */
  failNext(status: number, type: string, message: string): void;
  /** Break the next Claude stream after its first text delta with this exception frame (`:exception-type`). */
  failMidStream(type: string, message: string): void;
  reply: string;
  usage: { inputTokens: number; outputTokens: number };
  /** Claude calls the first tool offered (true by default). */
  callsTools: boolean;
}

const TOOL_ID = 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q';

/** Converse calls the first tool offered unless the last message carries a tool result. */
const toolOf = (body: Record<string, unknown>): string | undefined => {
  const messages = (body['messages'] ?? []) as { content?: unknown }[];
  if (JSON.stringify(messages.at(-1)?.content ?? '').includes('toolResult')) return undefined;
  return ((body['toolConfig'] as { tools?: { toolSpec: { name: string } }[] } | undefined)?.tools ?? []).map(
    (tool) => tool.toolSpec.name,
  )[0];
};

const ARGS = { location: 'Paris' };

/**
 * A loopback double of bedrock-runtime: `POST /model/{modelId}/{invoke|invoke-with-response-stream|
 * converse|converse-stream}`, every request's SigV4 signature verified with the secret (AWS's 403
 * InvalidSignatureException otherwise), answering Converse's JSON and ConverseStream's event-stream
 * frames, or Claude's Anthropic message and `chunk` frames (base64 Anthropic events: thinking when
 * asked, a tool call when offered; bedrock-claude-answers.ts), or an exception frame mid-stream.
 */
export const startBedrockDouble = async (): Promise<BedrockDouble> => {
  const requests: BedrockRequest[] = [];
  let failure: { status: number; type: string; message: string } | undefined;
  let midStream: { type: string; message: string } | undefined;
  const state = {
    reply: 'Hello from Bedrock, 你好 👋',
    usage: { inputTokens: 31, outputTokens: 17 },
    callsTools: true,
  };
  const accessKeyId = 'AKIDBEDROCKDOUBLE01';
  const secretAccessKey = 'bedrock/double+secret/0123456789abcdefghij';
  const region = 'us-west-2';

  const fail = (response: ServerResponse, status: number, type: string, message: string) => {
    response.writeHead(status, {
      'content-type': 'application/json',
      'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    });
    response.end(JSON.stringify({ message }));
  };

  const handler = (request: IncomingMessage, raw: Buffer, response: ServerResponse) => {
    const path = request.url ?? '';
    const match = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream)$/.exec(
      path,
    );
    if (request.method !== 'POST' || !match)
      return fail(response, 404, 'UnknownOperationException', 'Not found');
    const verdict = verifySigV4(
      { method: 'POST', path, headers: request.headers, body: raw },
      secretAccessKey,
    );
    if (
      !verdict.ok ||
      verdict.accessKeyId !== accessKeyId ||
      verdict.region !== region ||
      verdict.service !== 'bedrock'
    )
      return fail(
        response,
        403,
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided.',
      );
    const modelId = decodeURIComponent(match[1] ?? '');
    const operation = match[2] ?? '';
    const body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    requests.push({ path, modelId, operation, body, raw: raw.toString('utf8'), headers: request.headers });
    if (failure) {
      const { status, type, message } = failure;
      failure = undefined;
      return fail(response, status, type, message);
    }
    const claude = operation.startsWith('invoke');
    const tool = claude ? undefined : toolOf(body);
    const { inputTokens, outputTokens } = state.usage;
    if (operation === 'converse') {
      const content = tool
        ? [{ toolUse: { toolUseId: TOOL_ID, name: tool, input: ARGS } }]
        : [{ text: state.reply }];
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(
        JSON.stringify({
          output: { message: { role: 'assistant', content } },
          stopReason: tool ? 'tool_use' : 'end_turn',
          usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
          metrics: { latencyMs: 5 },
        }),
      );
    }
    if (operation === 'invoke') {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end(JSON.stringify(claudeMessage(body, state)));
    }
    const half = Math.ceil(state.reply.length / 2);
    const broken = claude ? midStream : undefined;
    midStream = undefined;
    const events = claude ? claudeStreamEvents(body, state) : [];
    const bytes = broken
      ? Buffer.concat([
          claudeChunkFrames(
            events.slice(0, events.findIndex((event) => event['type'] === 'content_block_delta') + 1),
          ),
          converseFrames([[broken.type, { message: broken.message }, 'exception']]),
        ])
      : claude
        ? claudeChunkFrames(events)
        : converseFrames([
            ['messageStart', { role: 'assistant' }],
            ...(tool
              ? ([
                  [
                    'contentBlockStart',
                    { contentBlockIndex: 0, start: { toolUse: { toolUseId: TOOL_ID, name: tool } } },
                  ],
                  [
                    'contentBlockDelta',
                    { contentBlockIndex: 0, delta: { toolUse: { input: JSON.stringify(ARGS) } } },
                  ],
                ] as RecordedFrame[])
              : ([
                  [
                    'contentBlockDelta',
                    { contentBlockIndex: 0, delta: { text: state.reply.slice(0, half) } },
                  ],
                  ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: state.reply.slice(half) } }],
                ] as RecordedFrame[])),
            ['contentBlockStop', { contentBlockIndex: 0 }],
            ['messageStop', { stopReason: tool ? 'tool_use' : 'end_turn' }],
            [
              'metadata',
              {
                usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
                metrics: { latencyMs: 5 },
              },
            ],
          ]);
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    // Written in odd pieces, so frames split across reads.
    for (let at = 0; at < bytes.length; at += 37) response.write(bytes.subarray(at, at + 37));
    response.end();
  };

  const listening = await listenHandler((request, raw, response) => {
    handler(request, raw, response);
  });
  return {
    ...listening,
    requests,
    accessKeyId,
    secretAccessKey,
    region,
    channelKey: `${accessKeyId}|${secretAccessKey}|${region}`,
    failNext: (status, type, message) => {
      failure = { status, type, message };
    },
    failMidStream: (type, message) => {
      midStream = { type, message };
    },
    get reply() {
      return state.reply;
    },
    set reply(value: string) {
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
    set callsTools(value: boolean) {
      state.callsTools = value;
    },
  };
};
