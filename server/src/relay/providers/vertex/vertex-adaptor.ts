import type { TranslatingAdaptor, UpstreamErrorInfo } from '../adaptor.js';
import {
  anthropicBody,
  createAnthropicStreamState,
  mapAnthropicStreamEvent,
  parseAnthropicError,
  parseAnthropicResponse,
} from '../anthropic/index.js';
import {
  createGeminiStreamState,
  geminiChatBody,
  mapGeminiStreamEvent,
  parseGeminiError,
  parseGeminiResponse,
} from '../gemini/index.js';
import { vertexAnthropicNative, vertexGeminiNative } from './vertex-native.js';
import {
  isVertexClaude,
  VERTEX_ANTHROPIC_VERSION,
  vertexActionOf,
  vertexHeadersOf,
  vertexUrlOf,
} from './vertex-request.js';
import { vertexTokenSource } from './vertex-token.js';

/** Claude's Messages body as Vertex AI takes it: `anthropic_version` added, no `model` (the path names it). */
const claudeBody = (
  body: Record<string, unknown>,
  model: string,
  stream: boolean,
): Record<string, unknown> => {
  const { model: _model, ...rest } = anthropicBody(body, model, stream);
  return { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
};

/**
 * The Gemini conversion's body, without the civic-integrity category, which Vertex AI has
 * deprecated ("Election filter is no longer supported"): a deprecated setting is not worth a refusal.
 */
const geminiBody = (body: Record<string, unknown>, model: string, safety: string | undefined) => {
  const out = geminiChatBody(body, model, safety);
  const settings = out['safetySettings'];
  if (Array.isArray(settings))
    out['safetySettings'] = settings.filter(
      (setting) => (setting as { category?: unknown }).category !== 'HARM_CATEGORY_CIVIC_INTEGRITY',
    );
  return out;
};

/**
 * Errors come in Google's shape (`{error:{code, message, status}}`: the front end's 401, 403, 404,
 * 429) or, from Claude itself, in Anthropic's (`{type:'error', error:{type, message}}`).
 */
const parseVertexError = (body: unknown): UpstreamErrorInfo | undefined =>
  typeof body === 'object' && body !== null && (body as { type?: unknown }).type === 'error'
    ? parseAnthropicError(body)
    : parseGeminiError(body);

/**
 * Google's Vertex AI (channel type 42): `gemini*` (and every model not Claude) through the Gemini
 * conversion to `publishers/google/models/<m>:generateContent` (streams
 * `:streamGenerateContent?alt=sse`); `claude-*` through the Anthropic conversion to
 * `publishers/anthropic/models/<m>:rawPredict` (streams `:streamRawPredict`). Every call carries
 * the channel's service-account access token (vertex-token.ts). Anthropic and Gemini clients pass
 * through untouched (vertex-native.ts).
 */
export const vertexAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  token: vertexTokenSource,
  buildRequest: (body, meta) => ({
    url: vertexUrlOf(meta, vertexActionOf(meta)),
    headers: vertexHeadersOf(meta),
    body: JSON.stringify(
      isVertexClaude(meta.model)
        ? claudeBody(body, meta.model, meta.stream)
        : geminiBody(body, meta.model, meta.settings?.geminiSafety),
    ),
  }),
  parseResponse: (body, meta) =>
    isVertexClaude(meta.model)
      ? parseAnthropicResponse(body, meta.model)
      : parseGeminiResponse(body, meta.model),
  translateStream: (meta) => {
    if (isVertexClaude(meta.model)) {
      const state = createAnthropicStreamState();
      return (event) => mapAnthropicStreamEvent(event, state, meta);
    }
    const state = createGeminiStreamState();
    return (event) => mapGeminiStreamEvent(event, state, meta);
  },
  parseError: parseVertexError,
  native: [vertexAnthropicNative, vertexGeminiNative],
};
