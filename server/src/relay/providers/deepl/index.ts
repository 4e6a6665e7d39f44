/** The DeepL folder's public entry: translation answered as a chat completion. */
export { deeplAdaptor } from './deepl-adaptor.js';
