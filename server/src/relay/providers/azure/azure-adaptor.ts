import type { PassThroughAdaptor } from '../adaptor.js';
import { openAiBody, parseOpenAiResponse } from '../openai/index.js';
import { parseOpenAiStyleError } from '../openai-errors.js';

export const AZURE_DEFAULT_API_VERSION = '2024-03-01-preview';

/**
 * Whether an Azure API version accepts `stream_options` (usage in streams): 2024-08-01-preview and
 * later previews, 2024-10-21 and later GA versions, and the undated ones of the v1 API
 * (`preview`, `latest`). Older versions answer 400 "Unrecognized request argument supplied:
 * stream_options".
 */
export const azureAcceptsStreamOptions = (version: string): boolean => {
  const dated = /^(\d{4}-\d{2}-\d{2})(-preview)?$/.exec(version);
  if (!dated?.[1]) return true;
  return dated[1] >= (dated[2] ? '2024-08-01' : '2024-10-21');
};

/**
 * Azure OpenAI: `<endpoint>/openai/deployments/<model without dots>/<path after /v1/>?api-version=…`
 * with the key in `api-key`; the deployment is the (mapped) model name.
 */
export const azureAdaptor: PassThroughAdaptor = {
  kind: 'pass-through',
  modes: ['chat', 'completions', 'embeddings', 'images', 'speech', 'transcription', 'translation'],
  buildRequest: (body, meta) => {
    const version = meta.channel.config['api_version'] || AZURE_DEFAULT_API_VERSION;
    const deployment = encodeURIComponent(meta.model.replaceAll('.', ''));
    const task = meta.path.replace(/^\/v1\//, '');
    const base = meta.channel.baseUrl.startsWith('https://gateway.ai.cloudflare.com')
      ? `${meta.channel.baseUrl}/${deployment}`
      : `${meta.channel.baseUrl}/openai/deployments/${deployment}`;
    return {
      url: `${base}/${task}?api-version=${encodeURIComponent(version)}`,
      headers: { 'api-key': meta.channel.key, 'content-type': 'application/json' },
      body: openAiBody(body, meta, azureAcceptsStreamOptions(version)),
    };
  },
  parseResponse: (body) => parseOpenAiResponse(body),
  parseError: parseOpenAiStyleError,
};
