import { relayError } from '../../lib/app-error.js';
import { usageQuota } from '../metering/pricing.js';
import type { NativeFormat, Usage } from '../providers/adaptor.js';
import { countTextTokens } from '../metering/token-counter.js';
import { nativeStream, type NativeOutcome } from '../stream/native-stream.js';
import { breakInfo, nativeBreakEvent, streamBreak } from '../stream/stream-break.js';
import {
  openInTime,
  readWhole,
  settle,
  streamFailure,
  streamReply,
  usageOrCount,
  type Answer,
} from './answers.js';
import { AttemptFailure, scrub } from './upstream-error.js';
import { reply, safeJson, type RelayReply } from './relay-response.js';

/**
 * A stream in the client's own format, passed on byte for byte once it opened (or its events sent
 * as server-sent events, when the format decodes another framing: what it words itself scrubbed);
 * settled at the end by the usage its events carried (or the tokens counted locally).
 */
const nativeStreamAnswer = (answer: Answer, native: NativeFormat): RelayReply | Promise<RelayReply> => {
  const { response } = answer;
  const format = answer.context.call.client?.format;
  // A format whose break carries what its stream said (the Responses API's `response.failed`) reads it.
  const breaking = format?.nativeBreak?.();
  const stream = nativeStream({
    native,
    adaptor: answer.adaptor,
    upstream: response,
    abortUpstream: () => response.body.destroy(),
    frames: native.decodeStream?.((text) => scrub(text, answer.meta.channel)),
    observe: breaking?.observe,
    breakEvent: (error) =>
      breaking
        ? breaking.failed(breakInfo(streamBreak(error)))
        : nativeBreakEvent(format, streamBreak(error)),
    onFinish: (outcome) => {
      const usage = usageOrCount(
        answer,
        outcome.final ? outcome.usage : cutShort(answer, outcome),
        outcome.text,
      );
      settle(answer, usageQuota(usage, answer.ratios), usage, true, false);
    },
  });
  let opened;
  try {
    opened = stream.open();
  } catch (error) {
    throw streamFailure(answer, error);
  }
  if (!(opened instanceof Promise)) return streamReply(answer, opened);
  return openInTime(opened, answer).then(
    (body) => streamReply(answer, body),
    (error: unknown) => {
      throw streamFailure(answer, error);
    },
  );
};

/**
 * A stream that ended before the provider's final usage (the client left, the upstream broke off):
 * the input as the provider said it at the start, the output counted from the text that came.
 */
const cutShort = (answer: Answer, outcome: NativeOutcome): Usage | undefined => {
  if (!outcome.usage || outcome.usage.prompt_tokens === 0) return undefined;
  const completion = countTextTokens(
    outcome.text,
    answer.model,
    answer.context.options.ApproximateTokenEnabled,
  );
  return {
    ...outcome.usage,
    completion_tokens: completion,
    total_tokens: outcome.usage.prompt_tokens + completion,
  };
};

/** A JSON answer in the client's own format: its bytes as they came, billed by the usage it carries. */
const nativeJsonAnswer = async (answer: Answer, native: NativeFormat): Promise<RelayReply> => {
  const raw = await readWhole(answer);
  const body = safeJson(raw);
  if (body === undefined)
    throw new AttemptFailure(
      relayError(502, 'bad_response', 'the upstream answered something that is not JSON'),
      true,
    );
  const read = native.readAnswer(body);
  const usage = usageOrCount(answer, read.usage, read.text);
  settle(answer, usageQuota(usage, answer.ratios), usage, false, false);
  return reply(raw, answer.response.status, answer.context.call.requestId, {
    'content-type': answer.contentType || 'application/json',
  });
};

/** The answer of a channel that speaks the client's format itself. */
export const nativeAnswer = (answer: Answer, native: NativeFormat): RelayReply | Promise<RelayReply> =>
  answer.meta.stream ? nativeStreamAnswer(answer, native) : nativeJsonAnswer(answer, native);
