import {
  anthropicBody,
  createAnthropicStreamState,
  mapAnthropicStreamEvent,
  parseAnthropicResponse,
} from '../anthropic/index.js';
import type { ParsedResponse, RelayRequestMeta, StreamTranslator } from '../adaptor.js';

/** The Messages API version Bedrock's InvokeModel wants in the body of a Claude request. */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * The InvokeModel body of a Claude request: Anthropic's Messages body (the Anthropic folder's
 * conversion) with `anthropic_version` and without `model` (in the URL), `stream` (the operation
 * says it) and `metadata` (Bedrock refuses it).
 */
export const bedrockClaudeBody = (body: Record<string, unknown>, model: string): Record<string, unknown> => {
  const { model: _model, stream: _stream, metadata: _metadata, ...rest } = anthropicBody(body, model, false);
  return { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest };
};

/** InvokeModel's Claude answer is Anthropic's message. */
export const parseBedrockClaudeResponse = (body: unknown, meta: RelayRequestMeta): ParsedResponse =>
  parseAnthropicResponse(body, meta.model);

/** InvokeModelWithResponseStream's chunks are Anthropic's stream events (already unwrapped by the decoder). */
export const bedrockClaudeStream = (meta: RelayRequestMeta): StreamTranslator => {
  const state = createAnthropicStreamState();
  return (event) => mapAnthropicStreamEvent(event, state, meta);
};
