import { randomUUID } from 'node:crypto';
import type {
  RelayRequestMeta,
  StreamStep,
  StreamTranslator,
  TranslatingAdaptor,
  UpstreamRequest,
} from '../adaptor.js';
import { bedrockClaudeBody, bedrockClaudeStream, parseBedrockClaudeResponse } from './bedrock-claude.js';
import { converseBody } from './bedrock-converse-request.js';
import { parseBedrockError, parseConverseResponse } from './bedrock-converse-response.js';
import { createConverseStreamState, mapConverseStreamEvent } from './bedrock-converse-stream.js';
import { bedrockBaseUrl, bedrockCredentials } from './bedrock-credentials.js';
import { EXCEPTION_EVENT, createEventStreamDecoder } from './bedrock-event-stream.js';
import { bedrockModelId, isBedrockClaude } from './bedrock-models.js';
import { signBedrockRequest } from './bedrock-signing.js';

const JSON_TYPE = 'application/json';
const EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';

/** The operation's path: InvokeModel for Claude, Converse for the rest, each with its stream variant. */
const operationOf = (claude: boolean, stream: boolean): string =>
  claude ? (stream ? 'invoke-with-response-stream' : 'invoke') : stream ? 'converse-stream' : 'converse';

const newId = (): string => `chatcmpl-${randomUUID().replaceAll('-', '')}`;

/** A translator that ends the stream on an exception frame (its message and exception name) first. */
const withExceptions = (translate: StreamTranslator): StreamTranslator => {
  let usage: StreamStep['usage'];
  return (event) => {
    if (event.event === EXCEPTION_EVENT) {
      const error = parseBedrockError(JSON.parse(event.data));
      return { chunks: [], done: true, ...(error ? { error } : {}), ...(usage ? { usage } : {}) };
    }
    const step = translate(event);
    if (step.usage) usage = step.usage;
    return step;
  };
};

/**
 * AWS Bedrock (channel type 33): `POST <base>/model/<model id>/<operation>` on bedrock-runtime in
 * the channel's region (its base URL when set), signed with SigV4 (`sign`, after the request is
 * built) or carrying a Bedrock API key. Claude models through InvokeModel with Anthropic's body
 * (`anthropic_version: bedrock-2023-05-31`); every other family through Converse. Streams are AWS's
 * binary event stream, decoded by `decodeStream`.
 */
export const bedrockAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  buildRequest: (body, meta) => {
    const credentials = bedrockCredentials(meta.channel);
    const modelId = bedrockModelId(meta.model);
    const claude = isBedrockClaude(modelId);
    const base = bedrockBaseUrl(meta.channel, credentials.region);
    const headers: Record<string, string> = {
      'content-type': JSON_TYPE,
      accept: meta.stream ? EVENT_STREAM_TYPE : JSON_TYPE,
      ...(claude && meta.stream ? { 'x-amzn-bedrock-accept': JSON_TYPE } : {}),
      ...(credentials.kind === 'api-key' ? { authorization: `Bearer ${credentials.apiKey}` } : {}),
    };
    return {
      url: `${base}/model/${encodeURIComponent(modelId)}/${operationOf(claude, meta.stream)}`,
      headers,
      body: JSON.stringify(claude ? bedrockClaudeBody(body, meta.model) : converseBody(body)),
    };
  },
  sign: async (request: UpstreamRequest, meta: RelayRequestMeta) => {
    const credentials = bedrockCredentials(meta.channel);
    return credentials.kind === 'sigv4' ? signBedrockRequest(request, credentials) : request;
  },
  parseResponse: (body, meta) =>
    isBedrockClaude(bedrockModelId(meta.model))
      ? parseBedrockClaudeResponse(body, meta)
      : parseConverseResponse(body, meta.model, newId()),
  translateStream: (meta) => {
    if (isBedrockClaude(bedrockModelId(meta.model))) return withExceptions(bedrockClaudeStream(meta));
    const state = createConverseStreamState(newId());
    return withExceptions((event) => mapConverseStreamEvent(event, state, meta));
  },
  decodeStream: () => createEventStreamDecoder(),
  parseError: parseBedrockError,
};
