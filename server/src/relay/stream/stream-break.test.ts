import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import { anthropicClient } from '../clients/anthropic/index.js';
import { geminiClient } from '../clients/gemini/index.js';
import { responsesClient } from '../clients/responses/index.js';
import { FirstByteTimeout } from '../upstream/upstream-timeout.js';
import { breakInfo, nativeBreakEvent, openAiErrorEvent, streamBreak } from './stream-break.js';

const CUT = 'the upstream broke off in the middle of its answer: the answer is incomplete';
const SILENT = 'the upstream fell silent in the middle of its answer: the answer is incomplete';

/** The data of a server-sent event, and its name. */
const eventOf = (text: string) => {
  expect(text.endsWith('\n\n')).toBe(true);
  const name = /^event: (.*)\n/.exec(text)?.[1] ?? '';
  const data = /^data: (.*)$/m.exec(text)?.[1] ?? '';
  return { name, data: JSON.parse(data) as unknown };
};

describe('streamBreak', () => {
  it('says a silent upstream (the idle timeout) timed out, anything else broke off', () => {
    expect(streamBreak(new errors.BodyTimeoutError())).toMatchObject({
      status: 504,
      code: 'stream_idle_timeout',
      message: SILENT,
    });
    for (const error of [new Error('other side closed'), new errors.SocketError('reset'), 'junk'])
      expect(streamBreak(error)).toMatchObject({ status: 502, code: 'stream_broken', message: CUT });
    // Only a silence between chunks is the idle timeout.
    expect(streamBreak(new FirstByteTimeout())).toMatchObject({ code: 'stream_broken' });
  });
});

describe('the event that ends a broken stream, in the client’s format', () => {
  const silent = streamBreak(new errors.BodyTimeoutError());

  it('is OpenAI’s error object for OpenAI’s format (and without a client format)', () => {
    const expected = {
      error: { message: SILENT, type: 'upstream_error', param: '', code: 'stream_idle_timeout' },
    };
    expect(eventOf(openAiErrorEvent(breakInfo(silent)))).toEqual({ name: '', data: expected });
    expect(eventOf(nativeBreakEvent(undefined, silent))).toEqual({ name: '', data: expected });
  });

  it('is Anthropic’s error event', () => {
    expect(eventOf(nativeBreakEvent(anthropicClient, silent))).toEqual({
      name: 'error',
      data: { type: 'error', error: { type: 'timeout_error', message: SILENT } },
    });
  });

  it('is Google’s error object, with the status’s name', () => {
    expect(eventOf(nativeBreakEvent(geminiClient, silent))).toEqual({
      name: '',
      data: { error: { code: 504, message: SILENT, status: 'DEADLINE_EXCEEDED' } },
    });
  });

  it('is the Responses API’s error event', () => {
    expect(eventOf(nativeBreakEvent(responsesClient, silent))).toEqual({
      name: 'error',
      data: { type: 'error', code: 'stream_idle_timeout', message: SILENT, param: null },
    });
  });
});
