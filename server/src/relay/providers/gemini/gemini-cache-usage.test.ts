import { CHANNEL_TYPE } from '@sluice/contract/channel-types';
import { describe, expect, it } from 'vitest';
import { fixtureMeta, replayStream } from '../../../test-support/stream-replay.js';
import { geminiAdaptor } from './gemini-adaptor.js';
import { geminiNative } from './gemini-native.js';

const meta = (stream = false) =>
  fixtureMeta(
    { type: CHANNEL_TYPE.gemini, baseUrl: 'https://generativelanguage.googleapis.com', key: 'AIza-key' },
    { model: 'gemini-2.5-flash', stream },
  );

/** usageMetadata as Gemini documents it: promptTokenCount counts the cached content too. */
const response = {
  candidates: [{ content: { parts: [{ text: 'Hi' }], role: 'model' }, finishReason: 'STOP', index: 0 }],
  usageMetadata: {
    promptTokenCount: 11_500,
    cachedContentTokenCount: 10_000,
    candidatesTokenCount: 1000,
    thoughtsTokenCount: 10_000,
    totalTokenCount: 22_500,
  },
  responseId: 'r1',
};

/** Thoughts are billed as completion; the cached content as cache reads within the prompt. */
const BILLED = {
  prompt_tokens: 11_500,
  completion_tokens: 11_000,
  total_tokens: 22_500,
  prompt_tokens_details: { cached_tokens: 10_000 },
};

describe('Gemini cached content', () => {
  it('is read from a translated answer and stream, thoughts billed as completion', () => {
    const parsed = geminiAdaptor.parseResponse(response, meta());
    expect(parsed.usage).toEqual(BILLED);
    expect((parsed.body as { usage: unknown }).usage).toEqual(BILLED);
    const replay = replayStream(geminiAdaptor, meta(true), [`data: ${JSON.stringify(response)}\r\n\r\n`]);
    expect(replay.usage).toEqual(BILLED);
  });

  it('is read from a native answer and stream', () => {
    expect(geminiNative.readAnswer(response).usage).toEqual(BILLED);
    expect(geminiNative.streamTap()({ event: '', data: JSON.stringify(response) }).usage).toEqual(BILLED);
  });

  it('is never more than the prompt', () => {
    const odd = { ...response, usageMetadata: { promptTokenCount: 5, cachedContentTokenCount: 9 } };
    expect(geminiNative.readAnswer(odd).usage).toEqual({
      prompt_tokens: 5,
      completion_tokens: 0,
      total_tokens: 5,
      prompt_tokens_details: { cached_tokens: 5 },
    });
  });
});
