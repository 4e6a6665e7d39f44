import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import type { RelayRequestMeta } from '../adaptor.js';
import { azureAcceptsStreamOptions, azureAdaptor } from './azure-adaptor.js';

const body = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hello!' }], stream: true };
const metaFor = (config: Record<string, string>): RelayRequestMeta => ({
  mode: 'chat',
  path: '/v1/chat/completions',
  model: 'gpt-4o',
  stream: true,
  channel: {
    id: 3,
    type: CHANNEL_TYPE.azure,
    key: 'azure-key',
    baseUrl: 'https://example.openai.azure.com',
    config,
  },
  body,
  clientHeaders: {},
  raw: new TextEncoder().encode(JSON.stringify(body)),
});
const sentBody = (config: Record<string, string>): unknown => {
  const request = azureAdaptor.buildRequest(body, metaFor(config));
  const text = typeof request.body === 'string' ? request.body : new TextDecoder().decode(request.body);
  return JSON.parse(text);
};

describe('Azure OpenAI: usage in streams only where the API version accepts stream_options', () => {
  it('knows the versions that accept stream_options', () => {
    for (const version of [
      '2024-08-01-preview',
      '2024-09-01-preview',
      '2025-04-01-preview',
      '2024-10-21',
      'preview',
      'latest',
    ])
      expect(azureAcceptsStreamOptions(version)).toBe(true);
    for (const version of [
      '2024-03-01-preview',
      '2024-07-01-preview',
      '2024-06-01',
      '2024-02-01',
      '2023-05-15',
    ])
      expect(azureAcceptsStreamOptions(version)).toBe(false);
  });

  it('sends the stream as the client sent it on the default version, 2024-03-01-preview', () => {
    const request = azureAdaptor.buildRequest(body, metaFor({}));
    expect(request.url).toBe(
      'https://example.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-03-01-preview',
    );
    expect(request.headers).toEqual({ 'api-key': 'azure-key', 'content-type': 'application/json' });
    expect(sentBody({})).toEqual(body);
    expect(sentBody({ api_version: '2024-06-01' })).toEqual(body);
  });

  it('asks for usage on 2024-10-21 and 2024-09-01-preview', () => {
    for (const version of ['2024-10-21', '2024-09-01-preview'])
      expect(sentBody({ api_version: version })).toEqual({
        ...body,
        stream_options: { include_usage: true },
      });
  });
});
