import { describe, expect, it } from 'vitest';
import {
  fullBody,
  LARGE_BODY_BYTES,
  RELAY_ROUTES,
  RELAY_SCHEMAS,
  plainlyValidChat,
  readRelayRequest,
} from './relay-request.js';

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

describe('a large chat body, read by its skeleton', () => {
  const chat = RELAY_ROUTES[0];
  if (!chat) throw new Error('no chat route');
  const big = 'lorem ipsum "quoted" \\ 中文 '.repeat(LARGE_BODY_BYTES / 16);

  /** The generated body made large: a long first message, or a long member of its own. */
  const enlarged = (body: Record<string, unknown>, next: () => number): Record<string, unknown> => {
    const messages = body['messages'];
    const first: unknown = Array.isArray(messages) ? messages[0] : undefined;
    if (typeof first === 'object' && first !== null && !Array.isArray(first) && next() < 0.7)
      return { ...body, messages: [{ ...first, content: big }, ...(messages as unknown[]).slice(1)] };
    return { ...body, tools_padding: big };
  };

  it('accepts and refuses exactly what the schema does, and reads the same request (600 bodies)', async () => {
    const next = random(20_261_128);
    let accepted = 0;
    for (let index = 0; index < 600; index += 1) {
      const generated = generate(next);
      // Half of them plainly valid, so that both sides are exercised.
      const body = enlarged(
        next() < 0.5
          ? { ...generated, model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }
          : generated,
        next,
      );
      const raw = Buffer.from(JSON.stringify(body));
      expect(raw.byteLength).toBeGreaterThanOrEqual(LARGE_BODY_BYTES);
      const schema = RELAY_SCHEMAS.chat.safeParse(body).success;
      const read = await readRelayRequest(chat, raw, 'application/json', undefined).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      );
      if (!schema) {
        expect(read, JSON.stringify(body).slice(0, 200)).toBeInstanceOf(Error);
        continue;
      }
      accepted += 1;
      if (read instanceof Error) throw read;
      expect(read.model).toBe(String(body['model']).trim());
      expect(read.stream).toBe(body['stream'] === true);
      expect(read.maxTokens).toBe(Number(body['max_tokens'] ?? body['max_completion_tokens'] ?? 0) || 0);
      expect(fullBody(read)).toEqual(body);
      expect(read.raw).toBe(raw);
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it('leaves the large members unparsed until the whole body is asked for', async () => {
    const body = {
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 64,
      messages: [{ role: 'user', content: big }],
    };
    const read = await readRelayRequest(chat, Buffer.from(JSON.stringify(body)), '', undefined);
    expect(read.body).toEqual({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 64,
    });
    expect(read.clientWantsUsage).toBe(true);
    expect(fullBody(read)).toEqual(body);
    // Parsed once.
    expect(fullBody(read)).toBe(fullBody(read));
  });

  it('answers the usual 400 for a large body that is not JSON or not a chat request', async () => {
    const raw = (text: string) => Buffer.from(text.replaceAll('BIG', JSON.stringify(big)));
    await expect(
      readRelayRequest(
        chat,
        raw(`{"model":"gpt-4o","messages":[{"role":"user","content":BIG}]`),
        '',
        undefined,
      ),
    ).rejects.toThrow('the body must be valid JSON');
    await expect(
      readRelayRequest(chat, raw(`{"messages":[{"role":"user","content":BIG}]}`), '', undefined),
    ).rejects.toThrow('model is required');
    await expect(
      readRelayRequest(chat, raw(`{"model":"gpt-4o","messages":[{"content":BIG}]}`), '', undefined),
    ).rejects.toThrow('every message needs a role');
  });
});
