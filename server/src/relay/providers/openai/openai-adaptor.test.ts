import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import type { RelayRequestMeta } from '../adaptor.js';
import { openAiBody } from './openai-adaptor.js';

const channel = {
  id: 1,
  type: CHANNEL_TYPE.openAi,
  key: 'sk-upstream',
  baseUrl: 'http://127.0.0.1:9',
  config: {},
};
const metaOf = (
  body: Record<string, unknown>,
  raw: string | undefined,
  stream: boolean,
): RelayRequestMeta => ({
  mode: 'chat',
  path: '/v1/chat/completions',
  model: String(body['model']),
  stream,
  channel,
  body,
  clientHeaders: {},
  raw: raw === undefined ? undefined : new TextEncoder().encode(raw),
});
const text = (value: string | Uint8Array) =>
  typeof value === 'string' ? value : new TextDecoder().decode(value);

describe('openAiBody: the client’s bytes when they may pass', () => {
  const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 };
  const raw = ' \n{ "model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"temperature":0.5}';

  it('sends the very bytes of a non-streamed request', () => {
    const meta = metaOf(chat, raw, false);
    expect(openAiBody(chat, meta)).toBe(meta.raw);
  });

  it('adds only the request for usage to a stream without stream_options, keeping the rest byte for byte', () => {
    const body = { ...chat, stream: true };
    const sent = text(openAiBody(body, metaOf(body, raw.replace('{', '{"stream":true,'), true)));
    expect(sent).toBe(
      ' \n{"stream_options":{"include_usage":true},"stream":true, "model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"temperature":0.5}',
    );
    expect(JSON.parse(sent)).toEqual({ ...body, stream_options: { include_usage: true } });
  });

  it('keeps an empty object valid JSON', () => {
    const sent = text(openAiBody({}, { ...metaOf({}, '{ }', true), model: 'x' }));
    expect(JSON.parse(sent)).toEqual({ stream_options: { include_usage: true } });
  });

  it('serialises again when the client sent stream_options of its own', () => {
    const body = { ...chat, stream: true, stream_options: { include_usage: false, other: 1 } };
    const sent = JSON.parse(text(openAiBody(body, metaOf(body, JSON.stringify(body), true)))) as unknown;
    expect(sent).toEqual({ ...body, stream_options: { include_usage: true, other: 1 } });
  });

  it('serialises with the mapped model when the bytes may not pass', () => {
    const meta = { ...metaOf(chat, undefined, false), model: 'gpt-4o-2024-08-06' };
    expect(JSON.parse(text(openAiBody(chat, meta)))).toEqual({ ...chat, model: 'gpt-4o-2024-08-06' });
  });
});
