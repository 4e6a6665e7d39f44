import type { RelayMode, RelayRequestMeta, TranslatingAdaptor } from '../adaptor.js';
import { aliChatBody, aliEmbeddingsBody } from './ali-request.js';
import { aliImageBody, aliImageTask } from './ali-image.js';
import { parseAliEmbeddings, parseAliError, parseAliResponse } from './ali-response.js';
import { createAliStreamTranslator } from './ali-stream.js';

type AliMode = 'chat' | 'embeddings' | 'images';

/** Each mode's service path and body. */
const SERVICES: Readonly<
  Record<AliMode, { path: string; body: (body: Record<string, unknown>, meta: RelayRequestMeta) => unknown }>
> = {
  chat: { path: '/api/v1/services/aigc/text-generation/generation', body: aliChatBody },
  embeddings: { path: '/api/v1/services/embeddings/text-embedding/text-embedding', body: aliEmbeddingsBody },
  images: { path: '/api/v1/services/aigc/text2image/image-synthesis', body: aliImageBody },
};

const serviceOf = (mode: RelayMode) => SERVICES[mode in SERVICES ? (mode as AliMode) : 'chat'];

/**
 * Alibaba DashScope (channel type 17), native: text-generation (`input.messages`, `result_format:
 * message`, streams with `X-DashScope-SSE: enable` and `incremental_output`), text-embedding, and
 * text-to-image as a task (`X-DashScope-Async: enable`) the relay polls to its end (`task`); the key
 * as a bearer; `X-DashScope-Plugin` from the channel's `plugin` (legacy `other`).
 */
export const aliAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat', 'embeddings', 'images'],
  buildRequest: (body, meta) => {
    const plugin = meta.channel.config['plugin'];
    const service = serviceOf(meta.mode);
    const headers: Record<string, string> = {
      authorization: `Bearer ${meta.channel.key}`,
      'content-type': 'application/json',
      ...(plugin ? { 'x-dashscope-plugin': plugin } : {}),
      ...(meta.stream && meta.mode === 'chat'
        ? { 'x-dashscope-sse': 'enable', accept: 'text/event-stream' }
        : {}),
      ...(meta.mode === 'images' ? { 'x-dashscope-async': 'enable' } : {}),
    };
    return {
      url: `${meta.channel.baseUrl}${service.path}`,
      headers,
      body: JSON.stringify(service.body(body, meta)),
    };
  },
  parseResponse: (body, meta) =>
    meta.mode === 'embeddings' ? parseAliEmbeddings(body, meta) : parseAliResponse(body, meta),
  translateStream: (meta) => createAliStreamTranslator(meta),
  parseError: parseAliError,
  task: aliImageTask,
};
