import { describe, expect, it } from 'vitest';
import { parseJsonRelayRequest, type RelayRoute } from '../request/relay-request.js';
import { conversationKeyOf } from './conversation-key.js';

const CHAT: RelayRoute = { path: '/v1/chat/completions', mode: 'chat' };
const EMBEDDINGS: RelayRoute = { path: '/v1/embeddings', mode: 'embeddings' };

const requestOf = (body: unknown, route = CHAT) =>
  parseJsonRelayRequest(route, Buffer.from(JSON.stringify(body)), 'application/json', undefined);

const keyOf = (
  body: unknown,
  extra: { headers?: Record<string, string>; tokenId?: number; client?: Record<string, unknown> } = {},
) =>
  conversationKeyOf({
    request: requestOf(body),
    clientBody: extra.client,
    clientHeaders: extra.headers ?? {},
    tokenId: extra.tokenId ?? 1,
  });

const turn = (count: number, system = 'You are terse.') => {
  const messages: { role: string; content: string }[] = [
    { role: 'system', content: system },
    { role: 'user', content: 'First question' },
  ];
  for (let index = 1; index < count; index += 1)
    messages.push({ role: 'assistant', content: `a${index}` }, { role: 'user', content: `q${index}` });
  return { model: 'gpt-4o', messages };
};

describe('conversationKeyOf', () => {
  it('names every turn of a conversation alike by its opening, and other openings or keys apart', () => {
    const first = keyOf(turn(1));
    expect(first).toMatch(/^[0-9a-f]{40}$/);
    expect(keyOf(turn(7))).toBe(first);
    expect(keyOf(turn(7, 'You are verbose.'))).not.toBe(first);
    expect(keyOf(turn(1), { tokenId: 2 })).not.toBe(first);
  });

  it('prefers prompt_cache_key, then Anthropic metadata.user_id, then x-session-id', () => {
    const named = keyOf({ ...turn(1), prompt_cache_key: 'p1' });
    expect(keyOf({ ...turn(3, 'other'), prompt_cache_key: 'p1' })).toBe(named);
    const client = { metadata: { user_id: 'user_x_session_1' } };
    expect(keyOf(turn(1, 'a'), { client })).toBe(keyOf(turn(2, 'b'), { client }));
    const headers = { 'x-session-id': 's1' };
    expect(keyOf(turn(1, 'a'), { headers })).toBe(keyOf(turn(2, 'b'), { headers }));
    expect(keyOf(turn(1), { headers })).not.toBe(first());
  });

  it('reads only a bounded prefix of a long opening', () => {
    const long = 'x'.repeat(100_000);
    expect(keyOf(turn(1, long))).toBe(keyOf(turn(1, `${long}but the end differs`)));
  });

  it('names a large body (read by its skeleton, its messages not parsed) by its first bytes of messages', () => {
    const big = 'y'.repeat(70_000);
    expect(requestOf(turn(1, big)).full).toBeDefined();
    expect(keyOf(turn(1, big))).toBe(keyOf(turn(9, big)));
    expect(keyOf(turn(1, big))).not.toBe(keyOf(turn(1, `z${big}`)));
  });

  it('has no conversation outside chat', () => {
    expect(
      conversationKeyOf({
        request: requestOf({ model: 'text-embedding-3-small', input: 'hi' }, EMBEDDINGS),
        clientHeaders: {},
        tokenId: 1,
      }),
    ).toBeUndefined();
  });
});

const first = () => keyOf(turn(1));
