import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta } from '../../../test-support/stream-replay.js';
import { palmAdaptor } from './palm-adaptor.js';

const meta = fixtureMeta(
  { type: CHANNEL_TYPE.palm, baseUrl: 'https://generativelanguage.googleapis.com', key: 'AIza-palm' },
  { model: 'PaLM-2' },
);

describe('palm adaptor', () => {
  it('pins one-api’s request: generateMessage, x-goog-api-key, authors 0 and 1', () => {
    const request = palmAdaptor.buildRequest(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hello' },
        ],
        temperature: 0.5,
        top_p: 0.9,
        n: 1,
      },
      meta,
    );
    expect(request.url).toBe(
      'https://generativelanguage.googleapis.com/v1beta2/models/chat-bison-001:generateMessage',
    );
    expect(request.headers).toEqual({ 'x-goog-api-key': 'AIza-palm', 'content-type': 'application/json' });
    expect(JSON.parse(String(request.body))).toEqual({
      prompt: {
        messages: [
          { author: '1', content: 'Be brief.' },
          { author: '0', content: 'Hello' },
        ],
      },
      temperature: 0.5,
      topP: 0.9,
      candidateCount: 1,
    });
  });

  it('answers the candidates without usage (counted locally)', () => {
    const parsed = palmAdaptor.parseResponse(
      { candidates: [{ author: '1', content: 'Hi there!' }], messages: [] },
      meta,
    );
    expect(parsed.body).toMatchObject({
      choices: [{ message: { content: 'Hi there!' }, finish_reason: 'stop' }],
    });
    expect(parsed.usage).toBeUndefined();
    expect(parsed.text).toBe('Hi there!');
  });

  it('fails a filtered answer with PaLM’s reason, and reads Google’s errors', () => {
    expect(() =>
      palmAdaptor.parseResponse({ filters: [{ reason: 'OTHER', message: 'blocked' }] }, meta),
    ).toThrow('blocked');
    expect(
      palmAdaptor.parseError({ error: { code: 404, message: 'not found', status: 'NOT_FOUND' } })?.message,
    ).toBe('not found');
  });
});
