import type { RelayRequestMeta, TranslatingAdaptor } from '../adaptor.js';
import { jsonLinesDecoder } from '../body-decoders.js';
import { cohereEmbedBody, parseCohereEmbeddings } from './cohere-embeddings.js';
import { cohereChatBody, cohereModelOf, cohereV1ChatBody, isInternetModel } from './cohere-request.js';
import { parseCohereError, parseCohereResponse, parseCohereV1Response } from './cohere-response.js';
import { cohereStreamTranslator, cohereV1StreamTranslator } from './cohere-stream.js';

const v1 = (meta: RelayRequestMeta): boolean => meta.mode === 'chat' && isInternetModel(meta.model);

const pathOf = (meta: RelayRequestMeta): string =>
  meta.mode === 'embeddings' ? '/v2/embed' : v1(meta) ? '/v1/chat' : '/v2/chat';

/**
 * Cohere (channel type 35), with `Authorization: Bearer <key>`: chat through the v2 API
 * (`<base>/v2/chat`, its server-sent events translated), embeddings through `<base>/v2/embed`. A
 * model named `…-internet` goes to the v1 chat API with the web-search connector, as one-api sent it
 * (v2 has no connectors); its stream is JSON lines. Usage is Cohere's billed units.
 */
export const cohereAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat', 'embeddings'],
  buildRequest: (body, meta) => {
    const model = cohereModelOf(meta.model);
    const payload =
      meta.mode === 'embeddings'
        ? cohereEmbedBody(body, model)
        : v1(meta)
          ? cohereV1ChatBody(body, model, meta.stream)
          : cohereChatBody(body, model, meta.stream);
    return {
      url: `${meta.channel.baseUrl}${pathOf(meta)}`,
      headers: {
        authorization: `Bearer ${meta.channel.key}`,
        'content-type': 'application/json',
        accept: meta.stream && meta.mode === 'chat' && !v1(meta) ? 'text/event-stream' : 'application/json',
      },
      body: JSON.stringify(payload),
    };
  },
  parseResponse: (body, meta) =>
    meta.mode === 'embeddings'
      ? parseCohereEmbeddings(body, meta)
      : v1(meta)
        ? parseCohereV1Response(body, meta.model)
        : parseCohereResponse(body, meta.model),
  translateStream: (meta) => (v1(meta) ? cohereV1StreamTranslator(meta) : cohereStreamTranslator(meta)),
  decodeStream: (meta) => (v1(meta) ? jsonLinesDecoder() : undefined),
  parseError: parseCohereError,
};
