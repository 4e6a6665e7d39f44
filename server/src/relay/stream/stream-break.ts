/**
 * A stream that broke after it opened (the upstream cut the connection, fell silent past its idle
 * timeout, or sent bytes that cannot be read): the client's stream ends with an error event in its
 * own format, never with a `[DONE]`, a usage chunk or a closing event that would make the cut answer
 * look complete. The request is billed for what was delivered (the stream's handler settles it).
 */
import { sseData } from '../../lib/sse.js';
import { relayError, type AppError } from '../../lib/app-error.js';
import type { ClientFormat, ClientFormatName } from '../clients/client-format.js';
import type { UpstreamErrorInfo } from '../providers/adaptor.js';
import { timeoutStep } from '../upstream/upstream-timeout.js';

/** Why the stream broke, as the relay says it: a 504 for a silent upstream, a 502 for a cut one. */
export const streamBreak = (error: unknown): AppError =>
  timeoutStep(error) === 'idle'
    ? relayError(
        504,
        'stream_idle_timeout',
        'the upstream fell silent in the middle of its answer: the answer is incomplete',
        'upstream_error',
      )
    : relayError(
        502,
        'stream_broken',
        'the upstream broke off in the middle of its answer: the answer is incomplete',
        'upstream_error',
      );

/** The break as the error of a stream (what a provider's own mid-stream error also is). */
export const breakInfo = (error: AppError): UpstreamErrorInfo => ({
  message: error.message,
  type: error.type,
  code: error.code,
});

/** OpenAI's mid-stream error event: `data: {"error":{…}}`, as OpenAI sends one (and no `[DONE]` after it). */
export const openAiErrorEvent = (error: UpstreamErrorInfo): string =>
  sseData(
    JSON.stringify({
      error: {
        message: error.message,
        type: error.type || 'upstream_error',
        param: '',
        code: error.code || null,
      },
    }),
  );

const input = (error: AppError) => ({
  status: error.status,
  message: error.message,
  type: error.type,
  code: error.code,
});

/**
 * A break in a stream relayed in the client's own format (a native channel), as that format's
 * provider says an error mid-stream: Anthropic's `error` event, Google's `{error:{code,message,status}}`
 * event; OpenAI's error event for OpenAI's format. The Responses API's break needs the stream's own
 * events (its `response.failed` carries the response as it stood): its format's `nativeBreak`
 * (clients/responses/responses-native-break.ts) says it; the `error` event here is only a fallback.
 */
const NATIVE_BREAKS: Readonly<Record<ClientFormatName, (format: ClientFormat, error: AppError) => string>> = {
  openai: (_format, error) => openAiErrorEvent(breakInfo(error)),
  anthropic: (format, error) => `event: error\n${sseData(JSON.stringify(format.errorBody(input(error))))}`,
  gemini: (format, error) => sseData(JSON.stringify(format.errorBody(input(error)))),
  responses: (_format, error) =>
    `event: error\n${sseData(
      JSON.stringify({ type: 'error', code: error.code, message: error.message, param: null }),
    )}`,
};

/** The event that ends a native stream broken by `error`, in the client's format (OpenAI's without one). */
export const nativeBreakEvent = (format: ClientFormat | undefined, error: AppError): string =>
  format ? NATIVE_BREAKS[format.name](format, error) : openAiErrorEvent(breakInfo(error));
