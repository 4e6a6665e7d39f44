import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../lib/app-error.js';
import { listenHandler, type Listening } from '../../test-support/listen.js';
import type { ChannelMeta, TokenSource } from '../providers/adaptor.js';
import { createTokenCache } from './token-cache.js';
import { createUpstream } from './upstream.js';

/** An OAuth-style token endpoint on loopback: counts its calls, answers tokens numbered by them. */
describe('the token cache', () => {
  let endpoint: Listening;
  let calls = 0;
  const upstream = createUpstream();
  beforeAll(async () => {
    endpoint = await listenHandler(async (_request, body, response) => {
      calls += 1;
      await new Promise((resolve) => setTimeout(resolve, 30));
      const { secret } = JSON.parse(body.toString('utf8')) as { secret: string };
      if (secret !== 'right') {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: 'invalid_client', error_description: 'bad secret' }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ access_token: `token-${calls}`, expires_in: 3600 }));
    });
  });
  afterAll(async () => {
    await endpoint?.close();
    await upstream.close();
  });

  const source: TokenSource = {
    cacheKey: (channel) => `test:${channel.id}`,
    request: (channel) => ({
      url: `${endpoint.url}/token`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret: channel.key }),
    }),
    read: (status, body) => {
      const answer = body as { access_token?: string; expires_in?: number; error_description?: string };
      return status === 200 && answer.access_token
        ? { token: answer.access_token, expiresInSeconds: answer.expires_in ?? 0 }
        : {
            message: answer.error_description ?? 'refused',
            type: 'authentication_error',
            code: 'invalid_client',
          };
    },
  };
  const channel = (id: number, key = 'right'): ChannelMeta => ({
    id,
    type: CHANNEL_TYPE.openAi,
    key,
    baseUrl: endpoint.url,
    config: {},
  });

  it('fetches a channel’s token once for 20 concurrent calls, then answers from memory', async () => {
    calls = 0;
    let clock = 1_000_000;
    const cache = createTokenCache(upstream.send, () => clock);
    const tokens = await Promise.all(Array.from({ length: 20 }, () => cache.token(source, channel(1))));
    expect(new Set(tokens)).toEqual(new Set(['token-1']));
    expect(calls).toBe(1);
    clock += 3_000_000;
    expect(await cache.token(source, channel(1))).toBe('token-1');
    expect(calls).toBe(1);
    // Within a minute of its expiry it is fetched again, once.
    clock += 600_000 - 59_000;
    const again = await Promise.all(Array.from({ length: 20 }, () => cache.token(source, channel(1))));
    expect(new Set(again)).toEqual(new Set(['token-2']));
    expect(calls).toBe(2);
  });

  it('keeps one token per channel’s credentials', async () => {
    calls = 0;
    const cache = createTokenCache(upstream.send);
    expect(await cache.token(source, channel(1))).toBe('token-1');
    expect(await cache.token(source, channel(2))).toBe('token-2');
    expect(await cache.token(source, channel(1))).toBe('token-1');
  });

  it('says a refused credential as the provider said it, and tries again on the next call', async () => {
    const cache = createTokenCache(upstream.send);
    const error = await cache.token(source, channel(3, 'wrong')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(401);
    expect((error as AppError).message).toContain('bad secret');
    expect((error as AppError).message).not.toContain('wrong');
    calls = 0;
    expect(await cache.token(source, channel(3))).toBe('token-1');
  });
});
