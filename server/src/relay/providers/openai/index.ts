/** The OpenAI folder's public entry: what other providers and the registry may use. */
export {
  createOpenAiAdaptor,
  defaultUrl,
  openAiBody,
  parseOpenAiResponse,
  type UrlBuilder,
} from './openai-adaptor.js';
export { OPENAI_MODELS } from './openai-models.js';
export { responsesNative } from './openai-responses-native.js';
