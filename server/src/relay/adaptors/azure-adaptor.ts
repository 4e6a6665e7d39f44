import type { Adaptor } from './adaptor.js';
import { mapOpenAiStreamEvent, openAiBody, parseOpenAiResponse } from './openai-adaptor.js';
import { parseOpenAiStyleError } from './openai-errors.js';

export const AZURE_DEFAULT_API_VERSION = '2024-03-01-preview';

/**
 * Azure OpenAI: `<endpoint>/openai/deployments/<model without dots>/<path after /v1/>?api-version=…`
 * with the key in `api-key`; the deployment is the (mapped) model name.
 */
export const azureAdaptor: Adaptor = {
  openAiFormat: true,
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
      body: openAiBody(body, meta),
    };
  },
  parseResponse: (body) => parseOpenAiResponse(body),
  createStreamState: () => undefined,
  mapStreamEvent: (event) => mapOpenAiStreamEvent(event.data),
  parseError: parseOpenAiStyleError,
};
