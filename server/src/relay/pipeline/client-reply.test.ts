import { describe, expect, it } from 'vitest';
import { CLIENT_FORMATS } from '../clients/client-formats.js';
import type { ClientCall } from './relay-context.js';
import { inClientFormat } from './client-reply.js';
import type { ChunkSource, RelayReply } from './relay-response.js';

/** The hub's stream as stream-relay.ts writes it for a client format: a text reply, a tool call, usage. */
const HUB_STREAM = [
  { choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
  { choices: [{ index: 0, delta: { content: 'Héllo, ' }, finish_reason: null }] },
  { choices: [{ index: 0, delta: { content: 'wörld 🤖' }, finish_reason: null }] },
  {
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        finish_reason: null,
      },
    ],
  },
  {
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: '{"location":' } }] },
        finish_reason: null,
      },
    ],
  },
  {
    choices: [
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] },
        finish_reason: null,
      },
    ],
  },
  { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
  { choices: [], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } },
]
  .map(
    (chunk) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', ...chunk })}\n\n`,
  )
  .join('')
  .concat('data: [DONE]\n\n');

const callOf = (name: keyof typeof CLIENT_FORMATS): ClientCall => ({
  format: CLIENT_FORMATS[name].format,
  context: { model: 'm', requestId: 'req-1', request: { model: 'm', stream: true }, created: 1_700_000_000 },
  body: {},
  raw: new Uint8Array(),
});

/** A chunk source giving `pieces` one by one. */
const sourceOf = (pieces: readonly Buffer[]): ChunkSource => {
  let next = 0;
  const source: ChunkSource = {
    done: false,
    next: () => {
      const piece = pieces[next];
      next += 1;
      source.done = next >= pieces.length;
      return Promise.resolve(piece);
    },
    cancel: () => undefined,
  };
  return source;
};

const streamReply = (body: RelayReply['body']): RelayReply => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body,
});

const drain = async (reply: RelayReply): Promise<string> => {
  const body = reply.body;
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  const out: Buffer[] = [];
  for (let chunk = await body.next(); chunk !== undefined; chunk = await body.next()) {
    out.push(Buffer.from(chunk));
    if (body.done) break;
  }
  return Buffer.concat(out).toString('utf8');
};

/** Ids a writer makes up per stream (random parts) compared by shape, not value. */
const steady = (text: string) => text.replace(/"(id|item_id|call_id|responseId)":"[^"]*"/g, '"$1":"…"');

describe('the hub’s stream written in each client format', () => {
  const bytes = Buffer.from(HUB_STREAM);
  for (const name of ['anthropic', 'responses', 'gemini'] as const)
    it(`gives the same ${name} events whether the hub’s bytes come whole or cut at any byte`, async () => {
      const whole = steady(await drain(inClientFormat(callOf(name), streamReply(bytes))));
      const streamed = steady(await drain(inClientFormat(callOf(name), streamReply(sourceOf([bytes])))));
      expect(streamed).toBe(whole);
      expect(whole).toContain('Paris');
      expect(whole).toContain('wörld 🤖');
      for (let at = 1; at < bytes.length; at += 1) {
        const cut = [bytes.subarray(0, at), bytes.subarray(at)];
        expect(steady(await drain(inClientFormat(callOf(name), streamReply(sourceOf(cut)))))).toBe(whole);
      }
    });

  it('ends the client’s stream properly when the hub’s stream ended without [DONE]', async () => {
    const unfinished = Buffer.from(HUB_STREAM.replace('data: [DONE]\n\n', ''));
    const out = await drain(inClientFormat(callOf('anthropic'), streamReply(sourceOf([unfinished]))));
    expect(out.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
  });

  it('says a provider error mid-stream in the client’s format', async () => {
    const broken = Buffer.from(
      `${HUB_STREAM.split('\n\n').slice(0, 2).join('\n\n')}\n\ndata: {"error":{"message":"Overloaded","type":"overloaded_error","code":""}}\n\ndata: [DONE]\n\n`,
    );
    const out = await drain(inClientFormat(callOf('anthropic'), streamReply(sourceOf([broken]))));
    expect(out).toContain('event: error');
    expect(out).toContain('Overloaded');
  });
});
