/** The Bedrock folder's public entry: the adaptor, its models, and its event-stream framing (for doubles). */
export { bedrockAdaptor } from './bedrock-adaptor.js';
export { BEDROCK_MODELS, bedrockModelId } from './bedrock-models.js';
export { createEventStreamDecoder, encodeEventStreamFrame } from './bedrock-event-stream.js';
