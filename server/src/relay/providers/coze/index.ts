/** The Coze folder's public entry: bots through the v3 chat API (v2 for one-api's path). */
export { cozeAdaptor } from './coze-adaptor.js';
