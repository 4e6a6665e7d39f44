import type { Adaptor, RelayRequestMeta } from '../adaptor.js';
import { geminiEmbeddingsBody, parseGeminiEmbeddings } from './gemini-embeddings.js';
import { geminiChatBody } from './gemini-request.js';
import { parseGeminiError, parseGeminiResponse } from './gemini-response.js';
import { createGeminiStreamState, mapGeminiStreamEvent, type GeminiStreamState } from './gemini-stream.js';

export const GEMINI_DEFAULT_API_VERSION = 'v1beta';

const urlOf = (meta: RelayRequestMeta): string => {
  const version =
    meta.channel.config['api_version'] || meta.settings?.geminiVersion || GEMINI_DEFAULT_API_VERSION;
  const action =
    meta.mode === 'embeddings'
      ? 'batchEmbedContents'
      : meta.stream
        ? 'streamGenerateContent?alt=sse'
        : 'generateContent';
  return `${meta.channel.baseUrl}/${version}/models/${encodeURIComponent(meta.model)}:${action}`;
};

/**
 * Google's Gemini API (channel type 24): `<base>/<version>/models/<model>:generateContent`
 * (streams `:streamGenerateContent?alt=sse`, embeddings `:batchEmbedContents`) with the key in
 * `x-goog-api-key`; version = the channel's api_version, else GEMINI_VERSION, else v1beta.
 */
export const geminiAdaptor: Adaptor = {
  openAiFormat: false,
  modes: ['chat', 'embeddings'],
  buildRequest: (body, meta) => ({
    url: urlOf(meta),
    headers: {
      'x-goog-api-key': meta.channel.key,
      'content-type': 'application/json',
      ...(meta.stream && meta.mode === 'chat' ? { accept: 'text/event-stream' } : {}),
    },
    body: JSON.stringify(
      meta.mode === 'embeddings'
        ? geminiEmbeddingsBody(body, meta)
        : geminiChatBody(body, meta.model, meta.settings?.geminiSafety),
    ),
  }),
  parseResponse: (body, meta) =>
    meta.mode === 'embeddings' ? parseGeminiEmbeddings(body, meta) : parseGeminiResponse(body, meta.model),
  createStreamState: () => createGeminiStreamState(),
  mapStreamEvent: (event, state, meta) => mapGeminiStreamEvent(event, state as GeminiStreamState, meta),
  parseError: parseGeminiError,
};
