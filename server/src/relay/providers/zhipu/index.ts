/** The Zhipu folder's public entry. */
export { zhipuAdaptor } from './zhipu-adaptor.js';
