import { relayError } from '../../../lib/app-error.js';
import type { RelayRequestMeta } from '../adaptor.js';
import { vertexChannelOf, vertexHostOf } from './vertex-config.js';

/** The `anthropic_version` of Claude on Vertex AI (in the body; the model is named by the path). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** Claude models are Anthropic's on Vertex AI (publishers/anthropic); every other model is Google's. */
export const isVertexClaude = (model: string): boolean => model.startsWith('claude');

/** A path segment as Google writes it: `@` (Claude's version separator) stays as it is. */
const segment = (value: string): string => encodeURIComponent(value).replaceAll('%40', '@');

/**
 * `<host>/v1/projects/<project>/locations/<region>/publishers/<publisher>/models/<model>:<action>`;
 * the host is the channel's base URL when it sets one, else the region's (vertex-config.ts).
 */
export const vertexUrlOf = (meta: RelayRequestMeta, action: string): string => {
  const { region, projectId } = vertexChannelOf(meta.channel);
  const host = meta.channel.baseUrl || vertexHostOf(region);
  const publisher = isVertexClaude(meta.model) ? 'anthropic' : 'google';
  return `${host}/v1/projects/${segment(projectId)}/locations/${segment(region)}/publishers/${publisher}/models/${segment(meta.model)}:${action}`;
};

/** The action of a call: Claude's rawPredict / streamRawPredict, Gemini's (stream)GenerateContent. */
export const vertexActionOf = (meta: RelayRequestMeta): string => {
  if (isVertexClaude(meta.model)) return meta.stream ? 'streamRawPredict' : 'rawPredict';
  return meta.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
};

/**
 * The headers of every call: the access token the relay fetched (vertex-token.ts) as a Bearer
 * token, JSON, and the client's `anthropic-beta` for Claude (Vertex AI honours it).
 */
export const vertexHeadersOf = (meta: RelayRequestMeta): Record<string, string> => {
  if (!meta.token)
    throw relayError(500, 'token_missing', 'the Vertex AI call has no access token', 'upstream_error');
  const beta = isVertexClaude(meta.model) ? meta.clientHeaders['anthropic-beta'] : undefined;
  return {
    authorization: `Bearer ${meta.token}`,
    'content-type': 'application/json',
    ...(beta ? { 'anthropic-beta': beta } : {}),
    ...(meta.stream ? { accept: 'text/event-stream' } : {}),
  };
};
