import type { RelayRequestMeta, TranslatingAdaptor } from '../adaptor.js';
import { tencentChatBody, tencentEmbeddingBody } from './tencent-request.js';
import { parseTencentChat, parseTencentEmbedding, parseTencentError } from './tencent-response.js';
import { tencentAuthorization, tencentCredentials } from './tencent-signature.js';
import { createTencentStreamState, mapTencentStreamEvent } from './tencent-stream.js';

/** The API version of ChatCompletions and GetEmbedding. */
export const TENCENT_API_VERSION = '2023-09-01';
const CONTENT_TYPE = 'application/json';

/**
 * Tencent Hunyuan (channel type 23): `POST <base>/` with the action in `X-TC-Action`
 * (`ChatCompletions`, embeddings `GetEmbedding`), `X-TC-Version: 2023-09-01`, `X-TC-Timestamp`,
 * and a TC3-HMAC-SHA256 `Authorization` (service `hunyuan`, signing `content-type;host`, the host
 * the base URL names) from the key `AppId|SecretId|SecretKey`.
 */
export const tencentAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat', 'embeddings'],
  buildRequest: (body, meta: RelayRequestMeta) => {
    const credentials = tencentCredentials(meta.channel.key);
    const embeddings = meta.mode === 'embeddings';
    const payload = JSON.stringify(
      embeddings ? tencentEmbeddingBody(body) : tencentChatBody(body, meta.model, meta.stream),
    );
    const url = `${meta.channel.baseUrl}/`;
    const timestamp = Math.floor(Date.now() / 1000);
    // The Host undici sends: the base URL's host (and port when not the scheme's default).
    const host = new URL(url).host;
    return {
      url,
      headers: {
        'content-type': CONTENT_TYPE,
        'x-tc-action': embeddings ? 'GetEmbedding' : 'ChatCompletions',
        'x-tc-version': TENCENT_API_VERSION,
        'x-tc-timestamp': String(timestamp),
        authorization: tencentAuthorization(credentials, {
          service: 'hunyuan',
          host,
          contentType: CONTENT_TYPE,
          timestamp,
          payload,
        }),
        ...(meta.stream && !embeddings ? { accept: 'text/event-stream' } : {}),
      },
      body: payload,
    };
  },
  parseResponse: (body, meta) =>
    meta.mode === 'embeddings' ? parseTencentEmbedding(body, meta) : parseTencentChat(body, meta),
  translateStream: (meta) => {
    const state = createTencentStreamState();
    return (event) => mapTencentStreamEvent(event, state, meta);
  },
  parseError: parseTencentError,
};
