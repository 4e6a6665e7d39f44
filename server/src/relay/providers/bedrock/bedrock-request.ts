import type { RelayRequestMeta, UpstreamRequest } from '../adaptor.js';
import { bedrockBaseUrl, bedrockCredentials } from './bedrock-credentials.js';
import { bedrockModelId, isBedrockClaude } from './bedrock-models.js';

const JSON_TYPE = 'application/json';
const EVENT_STREAM_TYPE = 'application/vnd.amazon.eventstream';

/** The operation's path: InvokeModel for Claude, Converse for the rest, each with its stream variant. */
const operationOf = (claude: boolean, stream: boolean): string =>
  claude ? (stream ? 'invoke-with-response-stream' : 'invoke') : stream ? 'converse-stream' : 'converse';

/**
 * The request to bedrock-runtime for `body` (serialised already): `POST <base>/model/<model id>/
 * <operation>` in the channel's region (its base URL when set), the model id from Sluice's table
 * for the model the channel maps to; a Bedrock API key as a Bearer token here, access keys signed
 * later (the adaptor's `sign`).
 */
export const bedrockRequest = (meta: RelayRequestMeta, body: string): UpstreamRequest => {
  const credentials = bedrockCredentials(meta.channel);
  const modelId = bedrockModelId(meta.model);
  const claude = isBedrockClaude(modelId);
  return {
    url: `${bedrockBaseUrl(meta.channel, credentials.region)}/model/${encodeURIComponent(modelId)}/${operationOf(claude, meta.stream)}`,
    headers: {
      'content-type': JSON_TYPE,
      accept: meta.stream ? EVENT_STREAM_TYPE : JSON_TYPE,
      // InvokeModelWithResponseStream: the type of the model's own events inside the frames.
      ...(claude && meta.stream ? { 'x-amzn-bedrock-accept': JSON_TYPE } : {}),
      ...(credentials.kind === 'api-key' ? { authorization: `Bearer ${credentials.apiKey}` } : {}),
    },
    body,
  };
};
