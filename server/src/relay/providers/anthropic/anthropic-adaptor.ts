import type { TranslatingAdaptor } from '../adaptor.js';
import { ANTHROPIC_DEFAULT_VERSION } from './anthropic-defaults.js';
import { anthropicNative } from './anthropic-native.js';
import { anthropicBody } from './anthropic-request.js';
import { parseAnthropicError, parseAnthropicResponse } from './anthropic-response.js';
import { createAnthropicStreamState, mapAnthropicStreamEvent } from './anthropic-stream.js';

/**
 * Anthropic's Messages API (channel type 14): `POST <base>/v1/messages` with `x-api-key` and
 * `anthropic-version` (the client's, else 2023-06-01; the client's `anthropic-beta` is passed on).
 * Chat only; requests, responses and streams are converted to and from OpenAI's format, except for
 * a client that speaks Anthropic's format itself (anthropic-native.ts: passed through untouched).
 */
export const anthropicAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  buildRequest: (body, meta) => {
    const beta = meta.clientHeaders['anthropic-beta'];
    return {
      url: `${meta.channel.baseUrl}/v1/messages`,
      headers: {
        'x-api-key': meta.channel.key,
        'anthropic-version': meta.clientHeaders['anthropic-version'] || ANTHROPIC_DEFAULT_VERSION,
        ...(beta ? { 'anthropic-beta': beta } : {}),
        'content-type': 'application/json',
        ...(meta.stream ? { accept: 'text/event-stream' } : {}),
      },
      body: JSON.stringify(anthropicBody(body, meta.model, meta.stream)),
    };
  },
  parseResponse: (body, meta) => parseAnthropicResponse(body, meta.model),
  translateStream: (meta) => {
    const state = createAnthropicStreamState();
    return (event) => mapAnthropicStreamEvent(event, state, meta);
  },
  parseError: parseAnthropicError,
  native: [anthropicNative],
};
