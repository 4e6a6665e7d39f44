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
import { bedrockAnthropicNative } from './bedrock-anthropic-native.js';
import { bedrockCredentials } from './bedrock-credentials.js';
import { EXCEPTION_EVENT, createEventStreamDecoder } from './bedrock-event-stream.js';
import { bedrockModelId, isBedrockClaude } from './bedrock-models.js';
import { bedrockRequest } from './bedrock-request.js';
import { signBedrockRequest } from './bedrock-signing.js';

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
 * binary event stream, decoded by `decodeStream`. An Anthropic client on a Claude model is passed
 * through natively (bedrock-anthropic-native.ts).
 */
export const bedrockAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  buildRequest: (body, meta) =>
    bedrockRequest(
      meta,
      JSON.stringify(
        isBedrockClaude(bedrockModelId(meta.model))
          ? bedrockClaudeBody(body, meta.model)
          : converseBody(body),
      ),
    ),
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
  native: [bedrockAnthropicNative],
};
