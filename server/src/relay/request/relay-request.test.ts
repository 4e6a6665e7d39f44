import { describe, expect, it } from 'vitest';
import { RELAY_ROUTES, RELAY_SCHEMAS, plainlyValidChat, readRelayRequest } from './relay-request.js';

/** A small seeded generator, so a failure names a body that can be replayed. */
const random = (seed: number) => () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};

const MODELS: unknown[] = [
  'gpt-4o',
  '  gpt-4o  ',
  '',
  '   ',
  'm'.repeat(256),
  'm'.repeat(257),
  7,
  null,
  true,
  ['gpt-4o'],
];
const FLAGS: unknown[] = [true, false, 'true', 1, 0, null, {}];
const COUNTS: unknown[] = [0, 1, 64, 2 ** 30, 2 ** 30 + 1, -1, 1.5, '64', null, 2 ** 53, [], {}];
const MESSAGE: unknown[] = [
  { role: 'user', content: 'hi' },
  { role: 'system', content: 'be brief' },
  { role: 'assistant' },
  { role: '' },
  { role: 3, content: 'x' },
  { content: 'no role' },
  null,
  'user: hi',
  [{ role: 'user' }],
];

const generate = (next: () => number): Record<string, unknown> => {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const body: Record<string, unknown> = {};
  if (next() < 0.9) body['model'] = pick(MODELS);
  if (next() < 0.5) body['stream'] = pick(FLAGS);
  if (next() < 0.5) body['max_tokens'] = pick(COUNTS);
  if (next() < 0.2) body['max_completion_tokens'] = pick(COUNTS);
  const shape = next();
  if (shape < 0.8) body['messages'] = Array.from({ length: Math.floor(next() * 4) }, () => pick(MESSAGE));
  else if (shape < 0.9) body['messages'] = pick(MESSAGE);
  if (next() < 0.3) body['temperature'] = next();
  return body;
};

describe('the chat shortcut never accepts what the schema refuses', () => {
  it('agrees with zod on 20 000 generated bodies: shortcut ⇒ schema', () => {
    const next = random(20_261_122);
    let shortcut = 0;
    let refused = 0;
    for (let index = 0; index < 20_000; index += 1) {
      const body = generate(next);
      const fast = plainlyValidChat(body);
      const schema = RELAY_SCHEMAS.chat.safeParse(body).success;
      if (fast) {
        shortcut += 1;
        expect(schema, JSON.stringify(body)).toBe(true);
      }
      if (!schema) refused += 1;
    }
    // Both sides of the shortcut were exercised.
    expect(shortcut).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(5_000);
  });

  it('takes the shortcut for an ordinary chat request', () => {
    expect(
      plainlyValidChat({
        model: 'gpt-4o',
        max_tokens: 64,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).toBe(true);
  });

  it('still answers zod’s message when the shortcut does not apply', async () => {
    const chat = RELAY_ROUTES[0];
    if (!chat) throw new Error('no chat route');
    const raw = (body: unknown) => new TextEncoder().encode(JSON.stringify(body));
    await expect(
      readRelayRequest(chat, raw({ model: 'gpt-4o', messages: [] }), '', undefined),
    ).rejects.toThrow('messages must not be empty');
    await expect(
      readRelayRequest(chat, raw({ model: 'gpt-4o', messages: [{ content: 'x' }] }), '', undefined),
    ).rejects.toThrow('every message needs a role');
    await expect(
      readRelayRequest(
        chat,
        raw({ model: 'gpt-4o', max_tokens: -1, messages: [{ role: 'user' }] }),
        '',
        undefined,
      ),
    ).rejects.toThrow('max_tokens');
  });
});
