import type { RelayRequestMeta, TranslatingAdaptor } from '../adaptor.js';
import { geminiVersionOf } from './gemini-defaults.js';
import { geminiEmbeddingsBody, parseGeminiEmbeddings } from './gemini-embeddings.js';
import { geminiNative } from './gemini-native.js';
import { geminiChatBody } from './gemini-request.js';
import { parseGeminiError, parseGeminiResponse } from './gemini-response.js';
import { createGeminiStreamState, mapGeminiStreamEvent } from './gemini-stream.js';

const urlOf = (meta: RelayRequestMeta): string => {
  const version = geminiVersionOf(meta);
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
 * `x-goog-api-key`; the version by `geminiVersionOf` (the channel's api_version, v1beta for the
 * models only it serves, else GEMINI_VERSION, else v1beta).
 */
export const geminiAdaptor: TranslatingAdaptor = {
  kind: 'translating',
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
  translateStream: (meta) => {
    const state = createGeminiStreamState();
    return (event) => mapGeminiStreamEvent(event, state, meta);
  },
  parseError: parseGeminiError,
  native: [geminiNative],
};
