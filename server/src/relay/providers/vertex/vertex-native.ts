import type { NativeFormat } from '../adaptor.js';
import { anthropicNative } from '../anthropic/index.js';
import { geminiNative } from '../gemini/index.js';
import {
  isVertexClaude,
  VERTEX_ANTHROPIC_VERSION,
  vertexActionOf,
  vertexHeadersOf,
  vertexUrlOf,
} from './vertex-request.js';

/**
 * An Anthropic client on a Vertex AI Claude model: its Messages body goes to `:rawPredict` /
 * `:streamRawPredict` as it came, but for `model` (named by the path, the one the channel maps to)
 * and `anthropic_version` (the client's own when its body has one, else vertex-2023-10-16); the
 * answer and its stream come back as they came, read by the Anthropic tap.
 */
export const vertexAnthropicNative: NativeFormat = {
  ...anthropicNative,
  serves: isVertexClaude,
  buildRequest: (body, _raw, meta) => {
    const { model: _model, anthropic_version: version, ...rest } = body;
    return {
      url: vertexUrlOf(meta, vertexActionOf(meta)),
      headers: vertexHeadersOf(meta),
      body: JSON.stringify({
        anthropic_version: typeof version === 'string' && version !== '' ? version : VERTEX_ANTHROPIC_VERSION,
        ...rest,
      }),
    };
  },
};

/**
 * A Gemini client on a Vertex AI Gemini model: its generateContent body goes to the Google
 * publisher's model (the one the channel maps to) as it came; the answer comes back as it came.
 */
export const vertexGeminiNative: NativeFormat = {
  ...geminiNative,
  serves: (model) => !isVertexClaude(model),
  buildRequest: (_body, raw, meta) => ({
    url: vertexUrlOf(meta, vertexActionOf(meta)),
    headers: vertexHeadersOf(meta),
    body: raw,
  }),
};
