/** Anthropic's Messages API as a client format (the folder's public entry). */
export { anthropicClient } from './anthropic-client.js';
export { ANTHROPIC_ONLY, anthropicCountAnswer, readAnthropicCountRequest } from './anthropic-to-hub.js';
export { anthropicModelList } from './anthropic-model-list.js';
export { anthropicErrorType } from './anthropic-error-body.js';
