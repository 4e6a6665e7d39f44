/**
 * The Gemini folder's public entry: the adaptor, and the generateContent conversions that other
 * providers serving Gemini (Vertex AI) reuse.
 */
export { geminiAdaptor } from './gemini-adaptor.js';
export { GEMINI_DEFAULT_API_VERSION } from './gemini-defaults.js';
export { geminiNative } from './gemini-native.js';
export { geminiEmbeddingsBody, parseGeminiEmbeddings } from './gemini-embeddings.js';
export { geminiChatBody } from './gemini-request.js';
export { parseGeminiError, parseGeminiResponse } from './gemini-response.js';
export { createGeminiStreamState, mapGeminiStreamEvent } from './gemini-stream.js';
export { GEMINI_MODELS } from './gemini-models.js';
