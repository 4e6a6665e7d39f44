import type { NativeFormat } from '../adaptor.js';
import { anthropicNative } from '../anthropic/index.js';
import { bedrockAnthropicEvents } from './bedrock-anthropic-events.js';
import { BEDROCK_ANTHROPIC_VERSION } from './bedrock-claude.js';
import { bedrockModelId, isBedrockClaude } from './bedrock-models.js';
import { bedrockRequest } from './bedrock-request.js';

/**
 * The betas of an `anthropic-beta` header (`a,b` or `a, b`, as a client joins several) as
 * InvokeModel's `anthropic_beta` list.
 */
const betasOf = (header: string | undefined): string[] =>
  (header ?? '')
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => beta !== '');

/**
 * An Anthropic client on a Bedrock Claude model: its Messages body goes to InvokeModel
 * (`/model/{id}/invoke`, or `/invoke-with-response-stream` for a stream) as it came but for `model`
 * (named by the path: the Bedrock id of the model the channel maps to) and `stream` (the operation
 * says it), with `anthropic_version: bedrock-2023-05-31` (the only value Bedrock takes, whatever
 * the client sent) and the client's `anthropic-beta` header as the body's `anthropic_beta`, where
 * Bedrock reads betas (unless the body has its own, as Anthropic's Bedrock SDK does it). The JSON
 * answer is Anthropic's message, passed on as it came; the stream's frames are Anthropic's events,
 * sent to the client as server-sent events (bedrock-anthropic-events.ts). Other families go
 * through the hub.
 */
export const bedrockAnthropicNative: NativeFormat = {
  ...anthropicNative,
  serves: (model) => isBedrockClaude(bedrockModelId(model)),
  buildRequest: (body, _raw, meta) => {
    const { model: _model, stream: _stream, anthropic_version: _version, ...rest } = body;
    const betas = rest['anthropic_beta'] === undefined ? betasOf(meta.clientHeaders['anthropic-beta']) : [];
    return bedrockRequest(
      meta,
      JSON.stringify({
        anthropic_version: BEDROCK_ANTHROPIC_VERSION,
        ...(betas.length > 0 ? { anthropic_beta: betas } : {}),
        ...rest,
      }),
    );
  },
  decodeStream: bedrockAnthropicEvents,
};
