import type { RelayRequestMeta, TranslatingAdaptor } from '../adaptor.js';
import { aliChatBody, aliEmbeddingsBody } from './ali-request.js';
import { parseAliEmbeddings, parseAliError, parseAliResponse } from './ali-response.js';
import { createAliStreamTranslator } from './ali-stream.js';

const urlOf = (meta: RelayRequestMeta): string =>
  meta.mode === 'embeddings'
    ? `${meta.channel.baseUrl}/api/v1/services/embeddings/text-embedding/text-embedding`
    : `${meta.channel.baseUrl}/api/v1/services/aigc/text-generation/generation`;

/**
 * Alibaba DashScope (channel type 17), native: text-generation (`input.messages`, `result_format:
 * message`, streams with `X-DashScope-SSE: enable` and `incremental_output`) and text-embedding,
 * the key as a bearer; `X-DashScope-Plugin` from the channel's `plugin` (legacy `other`).
 */
export const aliAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat', 'embeddings'],
  buildRequest: (body, meta) => {
    const plugin = meta.channel.config['plugin'];
    const headers: Record<string, string> = {
      authorization: `Bearer ${meta.channel.key}`,
      'content-type': 'application/json',
      ...(plugin ? { 'x-dashscope-plugin': plugin } : {}),
      ...(meta.stream && meta.mode === 'chat'
        ? { 'x-dashscope-sse': 'enable', accept: 'text/event-stream' }
        : {}),
    };
    return {
      url: urlOf(meta),
      headers,
      body: JSON.stringify(
        meta.mode === 'embeddings' ? aliEmbeddingsBody(body, meta) : aliChatBody(body, meta),
      ),
    };
  },
  parseResponse: (body, meta) =>
    meta.mode === 'embeddings' ? parseAliEmbeddings(body, meta) : parseAliResponse(body, meta),
  translateStream: (meta) => createAliStreamTranslator(meta),
  parseError: parseAliError,
};
