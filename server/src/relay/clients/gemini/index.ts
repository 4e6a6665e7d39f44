/**
 * The Gemini client format's public entry: clients speaking Gemini's API (Gemini CLI, @google/genai)
 * served through the hub (OpenAI chat), whatever the channel.
 */
export { geminiClient, geminiCountAnswer } from './gemini-client.js';
export { readGeminiCountRequest } from './gemini-to-hub.js';
export { geminiModelList, type GeminiModel } from './gemini-model-list.js';
export { geminiErrorBody, geminiStatusName } from './gemini-error-body.js';
/** The code of toHub's 400s for features only a native Gemini channel could serve (googleSearch, …). */
export { GEMINI_UNSUPPORTED } from './gemini-wire.js';
