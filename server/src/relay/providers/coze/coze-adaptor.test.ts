import { readFileSync } from 'node:fs';
import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta } from '../../../test-support/stream-replay.js';
import { cozeAdaptor } from './coze-adaptor.js';

const BOT = 'bot-7379462189365198898';
const meta = (
  baseUrl = 'https://api.coze.com',
  config: Record<string, string> = { user_id: '29032201862555' },
) => fixtureMeta({ type: CHANNEL_TYPE.coze, baseUrl, key: 'pat_channel', config }, { model: BOT });
const body = {
  messages: [
    { role: 'system', content: 'ignored: the bot has its persona' },
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello!' },
    { role: 'user', content: 'What can you do?' },
  ],
};

describe('coze adaptor', () => {
  it('pins the documented v3 request: POST /v3/chat, Bearer, bot and user, always streamed', () => {
    const request = cozeAdaptor.buildRequest(body, meta());
    expect(request.url).toBe('https://api.coze.com/v3/chat');
    expect(request.headers).toEqual({
      authorization: 'Bearer pat_channel',
      'content-type': 'application/json',
      accept: 'text/event-stream',
    });
    expect(JSON.parse(String(request.body))).toEqual({
      bot_id: '7379462189365198898',
      user_id: '29032201862555',
      stream: true,
      additional_messages: [
        { role: 'user', content: 'Hi', content_type: 'text' },
        { role: 'assistant', content: 'Hello!', content_type: 'text' },
        { role: 'user', content: 'What can you do?', content_type: 'text' },
      ],
    });
  });

  it('keeps one-api’s v2 call for a base URL ending with its path', () => {
    const request = cozeAdaptor.buildRequest(body, meta('https://api.coze.com/open_api/v2/chat'));
    expect(request.url).toBe('https://api.coze.com/open_api/v2/chat');
    expect(JSON.parse(String(request.body))).toEqual({
      bot_id: '7379462189365198898',
      user: '29032201862555',
      query: 'What can you do?',
      chat_history: [
        { role: 'user', content: 'Hi', content_type: 'text' },
        { role: 'assistant', content: 'Hello!', content_type: 'text' },
      ],
      stream: false,
    });
  });

  it('gathers a v3 stream into one answer with its usage (a non-stream request)', () => {
    const text = readFileSync(new URL('./coze-stream.recorded.sse', import.meta.url), 'utf8');
    const parsed = cozeAdaptor.gatherStream?.(text, meta());
    expect(parsed?.body).toMatchObject({
      id: 'chatcmpl-7382159487131697202',
      object: 'chat.completion',
      choices: [
        { message: { role: 'assistant', content: '你好！I am your bot 🤖.' }, finish_reason: 'stop' },
      ],
    });
    expect(parsed?.usage).toEqual({ prompt_tokens: 5878, completion_tokens: 766, total_tokens: 6644 });
  });

  it('answers v2’s messages without usage (counted locally), and fails Coze’s 200 error', () => {
    const parsed = cozeAdaptor.parseResponse(
      { messages: [{ role: 'assistant', type: 'answer', content: 'Hi!' }], conversation_id: '1', code: 0 },
      meta(),
    );
    expect(parsed.body).toMatchObject({ choices: [{ message: { content: 'Hi!' } }] });
    expect(parsed.usage).toBeUndefined();
    expect(() => cozeAdaptor.parseResponse({ code: 4100, msg: 'authentication is invalid' }, meta())).toThrow(
      'authentication is invalid',
    );
    expect(cozeAdaptor.parseError({ code: 4100, msg: 'authentication is invalid' })).toEqual({
      message: 'authentication is invalid',
      type: 'upstream_error',
      code: '4100',
    });
  });
});
