import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { expect } from 'vitest';
import type { ApiClient } from '../../server/src/test-support/api-client.js';

/** Data the flows and screenshots need, created through the API as root. */

/** Creates `count` redemption codes of `quota` each; answers the codes. */
export const createRedemptionCodes = async (
  root: ApiClient,
  name: string,
  quota: number,
  count = 1,
): Promise<string[]> => {
  const answer = await root.post('/api/redemption/', { name, quota, count });
  expect(answer.body.success, answer.text).toBe(true);
  return answer.body.data as string[];
};

/** Creates an OpenAI channel in front of `baseUrl` serving `models`; answers nothing. */
export const createChannel = async (
  root: ApiClient,
  baseUrl: string,
  models = 'gpt-4o-mini',
): Promise<void> => {
  const answer = await root.post('/api/channel/', {
    name: 'e2e-upstream',
    type: CHANNEL_TYPE.openAi,
    key: 'sk-upstream-e2e',
    base_url: baseUrl,
    models,
    group: 'default',
  });
  expect(answer.body.success, answer.text).toBe(true);
};

/** The key (without sk-) of the caller's token named `name`. */
export const tokenKey = async (client: ApiClient, name: string): Promise<string> => {
  const answer = await client.get(`/api/token/search?keyword=${encodeURIComponent(name)}`);
  const tokens = answer.body.data as { name: string; key: string }[];
  const token = tokens.find((candidate) => candidate.name === name);
  if (!token) throw new Error(`no token named ${name}`);
  return token.key;
};

/** Sets one option as root. */
export const setOption = async (root: ApiClient, key: string, value: string): Promise<void> => {
  const answer = await root.put('/api/option/', { key, value });
  expect(answer.body.success, answer.text).toBe(true);
};

/** One chat completion through the relay with `key`. */
export const relayChat = async (url: string, key: string, model = 'gpt-4o-mini'): Promise<void> => {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  await response.text();
};
