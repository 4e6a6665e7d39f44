import { parseJson } from '@sluice/contract/parse-json';
import type { RelayRequestMeta, SseEvent, StreamStep, TranslatingAdaptor } from '../adaptor.js';
import { createOpenAiAdaptor } from '../openai/index.js';
import { parseOpenAiStyleError } from '../openai-errors.js';
import { readUsage } from '../openai-usage.js';
import { signedSparkUrl, sparkCredentials } from './spark-auth.js';
import { sparkFrame } from './spark-request.js';
import { parseSparkError, parseSparkFrames } from './spark-response.js';
import { createSparkStreamState, mapSparkFrame } from './spark-stream.js';
import { sparkVersionOf } from './spark-versions.js';

/** The type's default base URL: its WebSocket API's host (as https://, the URL is the same with wss://). */
export const SPARK_BASE_URL = 'https://spark-api.xf-yun.com';
/** Where a key without `|` (an HTTP API password) goes when the channel names no base URL of its own. */
const SPARK_HTTP_BASE_URL = 'https://spark-api-open.xf-yun.com';

/** Spark's OpenAI-compatible HTTP endpoint (Bearer with the API password), through the OpenAI adaptor. */
const http = createOpenAiAdaptor(
  (channel) =>
    `${channel.baseUrl === SPARK_BASE_URL ? SPARK_HTTP_BASE_URL : channel.baseUrl}/v1/chat/completions`,
  {},
  ['chat'],
);

const isHttp = (meta: RelayRequestMeta): boolean => !meta.channel.key.includes('|');

/** An OpenAI-format stream event, passed on as it came (its usage read). */
const openAiEvent = (event: SseEvent): StreamStep => {
  if (event.data.trim() === '[DONE]') return { chunks: [], done: true };
  const chunk = parseJson(event.data);
  if (typeof chunk !== 'object' || chunk === null) return { chunks: [] };
  const error = 'choices' in chunk ? undefined : parseOpenAiStyleError(chunk);
  if (error) return { chunks: [], done: true, error };
  const usage = readUsage((chunk as { usage?: unknown }).usage);
  return { chunks: [chunk], ...(usage ? { usage } : {}) };
};

/**
 * iFlytek Spark (channel type 18). A key `APPID|APISecret|APIKey` speaks the WebSocket API: the
 * HMAC-signed `ws(s)://<base host>/<version path>` (the version from the model or the channel's
 * api_version), the request as the first frame, the answer's frames converted (the upstream layer
 * gives them as SSE events, or, not streamed, as one JSON array). A key without `|` is an HTTP API
 * password for Spark's OpenAI-compatible endpoint.
 */
export const sparkAdaptor: TranslatingAdaptor = {
  kind: 'translating',
  modes: ['chat'],
  buildRequest: (body, meta) => {
    const credentials = sparkCredentials(meta.channel.key);
    if (!credentials) return http.buildRequest(body, { ...meta, raw: undefined });
    const version = sparkVersionOf(meta.model, meta.channel.config['api_version']);
    const base = meta.channel.baseUrl.replace(/^http/, 'ws');
    return {
      url: signedSparkUrl(`${base}${version.path}`, credentials, new Date(Date.now()).toUTCString()),
      headers: {
        'content-type': 'application/json',
        ...(meta.stream ? { accept: 'text/event-stream' } : {}),
      },
      body: JSON.stringify(sparkFrame(body, credentials.appId, version)),
    };
  },
  parseResponse: (body, meta) =>
    isHttp(meta) ? http.parseResponse(body, meta) : parseSparkFrames(body, meta),
  translateStream: (meta) => {
    if (isHttp(meta)) return openAiEvent;
    const state = createSparkStreamState();
    return (event) => mapSparkFrame(event, state, meta);
  },
  parseError: (body) => parseSparkError(body) ?? parseOpenAiStyleError(body),
};
