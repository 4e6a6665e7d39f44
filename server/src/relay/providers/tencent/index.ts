/** The Tencent Hunyuan folder's public entry: the adaptor (TC3-HMAC-SHA256-signed ChatCompletions, GetEmbedding). */
export { tencentAdaptor, TENCENT_API_VERSION } from './tencent-adaptor.js';
