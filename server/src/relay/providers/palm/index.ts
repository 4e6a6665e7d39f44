/** The PaLM folder's public entry: PaLM 2's generateMessage, for old one-api channels. */
export { palmAdaptor } from './palm-adaptor.js';
