import type { RelayRequestMeta, TranslatingAdaptor } from '../adaptor.js';
import { openAiBody } from '../openai/index.js';
import { baiduEndpoint, isBaiduEmbeddingModel } from './baidu-models.js';
import { baiduChatBody, baiduEmbeddingsBody } from './baidu-request.js';
import { parseBaiduEmbeddings, parseBaiduError, parseBaiduResponse } from './baidu-response.js';
import { createBaiduStreamTranslator } from './baidu-stream.js';
import { baiduCredentials, baiduTokenSource } from './baidu-token.js';

/** The v1 API's default host; a Qianfan v2 key goes to the v2 host instead. */
export const BAIDU_V1_BASE_URL = 'https://aip.baidubce.com';
export const BAIDU_V2_BASE_URL = 'https://qianfan.baidubce.com';

const isEmbeddings = (meta: RelayRequestMeta): boolean =>
  meta.mode === 'embeddings' || isBaiduEmbeddingModel(meta.model);

/** v1: `<base>/rpc/2.0/ai_custom/v1/wenxinworkshop/{chat|embeddings}/<endpoint>?access_token=…`. */
const v1Url = (meta: RelayRequestMeta): string => {
  const kind = isEmbeddings(meta) ? 'embeddings' : 'chat';
  const token = encodeURIComponent(meta.token ?? '');
  return `${meta.channel.baseUrl}/rpc/2.0/ai_custom/v1/wenxinworkshop/${kind}/${baiduEndpoint(meta.model)}?access_token=${token}`;
};

/** v2 (OpenAI-compatible): `<base>/v2/chat/completions` or `/v2/embeddings`, the default v1 host swapped. */
const v2Url = (meta: RelayRequestMeta): string => {
  const base = meta.channel.baseUrl === BAIDU_V1_BASE_URL ? BAIDU_V2_BASE_URL : meta.channel.baseUrl;
  return `${base}/v2/${meta.mode === 'embeddings' ? 'embeddings' : 'chat/completions'}`;
};

/**
 * Baidu Wenxin Qianfan (channel type 15). A key `APIKey|SecretKey` is exchanged for an OAuth access
 * token (the relay's token cache, `baiduTokenSource`) and calls one-api's endpoint of the model on
 * the v1 API; a key without `|` is a Qianfan v2 API key, sent as a bearer to the OpenAI-compatible
 * v2 API (its answers and chunks are OpenAI's already).
 */
export const baiduAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat', 'embeddings'],
  token: baiduTokenSource,
  buildRequest: (body, meta) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!baiduCredentials(meta.channel.key)) {
      headers['authorization'] = `Bearer ${meta.channel.key}`;
      return { url: v2Url(meta), headers, body: openAiBody(body, meta) };
    }
    return {
      url: v1Url(meta),
      headers,
      body: JSON.stringify(isEmbeddings(meta) ? baiduEmbeddingsBody(body) : baiduChatBody(body, meta)),
    };
  },
  parseResponse: (body, meta) =>
    meta.mode === 'embeddings' ? parseBaiduEmbeddings(body, meta) : parseBaiduResponse(body, meta),
  translateStream: (meta) => createBaiduStreamTranslator(meta),
  parseError: parseBaiduError,
};
