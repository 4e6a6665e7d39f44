/**
 * The Anthropic folder's public entry: the adaptor, and the Messages conversions that other
 * providers serving Claude (Bedrock, Vertex AI) reuse.
 */
export { anthropicAdaptor } from './anthropic-adaptor.js';
export { ANTHROPIC_DEFAULT_VERSION } from './anthropic-defaults.js';
export { anthropicNative } from './anthropic-native.js';
export { ANTHROPIC_DEFAULT_MAX_TOKENS, anthropicBody } from './anthropic-request.js';
export { parseAnthropicError, parseAnthropicResponse } from './anthropic-response.js';
export { createAnthropicStreamState, mapAnthropicStreamEvent } from './anthropic-stream.js';
export { ANTHROPIC_MODELS } from './anthropic-models.js';
