import { AppError, relayError } from '../../lib/app-error.js';
import { billableUsage } from '../metering/billable-usage.js';
import { settlementOf } from '../metering/charge.js';
import { imageQuota, transcriptQuota, usageQuota, type Ratios } from '../metering/pricing.js';
import { countTextTokens } from '../metering/token-counter.js';
import type { Adaptor, ParsedResponse, RelayMode, RelayRequestMeta, Usage } from '../providers/adaptor.js';
import type { RelayRequest } from '../request/relay-request.js';
import { StreamRefused } from '../stream/stream-opening.js';
import { relayStream } from '../stream/stream-relay.js';
import type { UpstreamResponse } from '../upstream/upstream.js';
import { FirstByteTimeout } from '../upstream/upstream-timeout.js';
import { addCostHeaders } from './cost-headers.js';
import type { RequestContext } from './relay-context.js';
import { passedOn, reply, safeJson, type ChunkSource, type RelayReply } from './relay-response.js';
import { pollTask } from './task-polling.js';
import {
  AttemptFailure,
  isRetryableStatus,
  refusedStream,
  scrubbedError,
  transportFailure,
} from './upstream-error.js';

/** A 2xx upstream answer, with what its handler needs to answer the client and settle the request. */
export interface Answer {
  readonly context: RequestContext;
  readonly channelId: number;
  readonly adaptor: Adaptor;
  readonly meta: RelayRequestMeta;
  readonly response: UpstreamResponse;
  readonly contentType: string;
  /** The model the channel maps the request to: billed and logged. */
  readonly model: string;
  readonly ratios: Ratios;
  readonly systemPromptReset: boolean;
  /** When (performance.now()) a stream must have opened: the request sent + the first-byte timeout. */
  readonly openBy: number;
}

/** How an answer reaches the client and what it is billed by. */
export type AnswerKind = 'stream' | 'speech' | 'transcript' | 'image' | 'json';

export const isMultipart = (mode: RelayMode): boolean => mode === 'transcription' || mode === 'translation';

export const answerKindOf = (request: RelayRequest): AnswerKind => {
  if (request.stream && request.mode !== 'speech') return 'stream';
  if (request.mode === 'speech') return 'speech';
  if (isMultipart(request.mode)) return 'transcript';
  return request.mode === 'images' ? 'image' : 'json';
};

const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** Settles the request at `cost` (tracked: it is written after the answer, in a batch). */
export const settle = (answer: Answer, cost: number, usage: Usage, stream: boolean, reset: boolean): void => {
  const { deps, charged, lease } = answer.context;
  // The rate limits' tokens per minute count what is billed: the estimate replaced by the usage.
  lease?.settle(usage.prompt_tokens + usage.completion_tokens);
  answer.context.call.route?.settled(answer.model, usage, charged.payer.userId, cost);
  deps.track(
    deps.billing.settle(
      settlementOf(charged, {
        channelId: answer.channelId,
        model: answer.model,
        ratios: answer.ratios,
        cost,
        usage,
        stream,
        systemPromptReset: reset,
      }),
    ),
  );
};

/** The upstream's usage, or the tokens counted locally when it gave none (billable-usage.ts). */
export const usageOrCount = (answer: Answer, usage: Usage | undefined, text: string): Usage =>
  billableUsage(usage, text, {
    chat: answer.meta.mode === 'chat',
    promptTokens: answer.context.localPromptTokens,
    textTokens: (generated) =>
      countTextTokens(generated, answer.model, answer.context.options.ApproximateTokenEnabled),
    onInsane: (reported) =>
      answer.context.deps.logger.warn(
        { requestId: answer.context.call.requestId, channel: answer.channelId, usage: reported },
        'the upstream reported a usage that is not sane: clamped',
      ),
  });

/** The whole answer; one that breaks off is a failed attempt like one that never came. */
export const readWhole = (answer: Answer): Promise<Buffer> =>
  answer.response.body.readAll().catch((error: unknown) => {
    throw transportFailure(error, answer.context.call.clientSignal.aborted);
  });

const requestIdOf = (answer: Answer) => answer.context.call.requestId;

/** The client's stream: one body when the upstream's had already ended, else chunk by chunk. */
export const streamReply = (answer: Answer, body: Uint8Array | ChunkSource): RelayReply =>
  reply(body, 200, requestIdOf(answer), {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
  });

/**
 * A stream's opening within the channel's first-byte timeout (counted from the request sent, so the
 * wait for the headers counts): past it the upstream is dropped and the opening fails with a
 * FirstByteTimeout, a failed attempt (504) like any before the client got a byte: the next channel
 * is tried. Pings and keep-alives do not put it off.
 */
export const openInTime = <T>(opened: Promise<T>, answer: Answer): Promise<T> => {
  const timer = setTimeout(
    () => answer.response.body.destroy(new FirstByteTimeout()),
    Math.max(0, answer.openBy - performance.now()),
  );
  return opened.finally(() => clearTimeout(timer));
};

/** A stream that did not open is a failed attempt (a 502), as is an upstream that failed before it opened. */
export const streamFailure = (answer: Answer, error: unknown): Error =>
  error instanceof StreamRefused
    ? refusedStream(error.message, error.upstream, answer.meta.channel)
    : transportFailure(error, answer.context.call.clientSignal.aborted);

/**
 * Server-sent events, relayed as they come once the upstream's stream opened (its first event of
 * the provider's format: the client is answered nothing before, so a stream that does not open
 * fails over to the next channel); settled at the end by the usage they carried.
 */
const streamAnswer = (answer: Answer): RelayReply | Promise<RelayReply> => {
  const { response } = answer;
  const stream = relayStream({
    adaptor: answer.adaptor,
    meta: answer.meta,
    upstream: response,
    clientWantsUsage: answer.context.call.request.clientWantsUsage,
    dollarsOf: (usage) =>
      usageQuota(usageOrCount(answer, usage, ''), answer.ratios) / answer.context.options.QuotaPerUnit,
    abortUpstream: () => response.body.destroy(),
    onFinish: (outcome) => {
      const usage = usageOrCount(answer, outcome.usage, outcome.text);
      settle(answer, usageQuota(usage, answer.ratios), usage, true, answer.systemPromptReset);
    },
  });
  let opened;
  try {
    opened = stream.open();
  } catch (error) {
    throw streamFailure(answer, error);
  }
  // An upstream that answered at once (its end already here) is answered as one body, without a wait.
  if (!(opened instanceof Promise)) return streamReply(answer, opened);
  return openInTime(opened, answer).then(
    (body) => streamReply(answer, body),
    (error: unknown) => {
      throw streamFailure(answer, error);
    },
  );
};

/**
 * Speech audio, passed on as it comes: priced by the input, as one-api (the reservation, or the
 * estimate for a trusted payer), billed once the upstream delivered it all; an upstream that broke
 * off costs nothing (the reservation goes back).
 */
const speechAnswer = (answer: Answer): RelayReply => {
  const { admission, deps } = answer.context;
  const audio = passedOn(answer.response.body, (delivered) =>
    delivered
      ? settle(
          answer,
          admission.reserved > 0 ? admission.reserved : admission.estimate,
          NO_USAGE,
          false,
          false,
        )
      : deps.track(deps.billing.release(admission.payer, admission.reserved, admission.reservationId)),
  );
  return reply(audio, answer.response.status, requestIdOf(answer), {
    'content-type': answer.contentType || 'audio/mpeg',
  });
};

/** A transcription or translation: billed by the transcript's tokens × model and group ratios. */
const transcriptAnswer = async (answer: Answer): Promise<RelayReply> => {
  const raw = await readWhole(answer);
  const transcript = answer.contentType.includes('json')
    ? (safeJson(raw) as { text?: unknown } | undefined)?.text
    : raw.toString('utf8');
  const text = typeof transcript === 'string' ? transcript : '';
  const tokens = countTextTokens(text, answer.model, answer.context.options.ApproximateTokenEnabled);
  const usage = { prompt_tokens: 0, completion_tokens: tokens, total_tokens: tokens };
  const cost = transcriptQuota(tokens, answer.ratios);
  settle(answer, cost, usage, false, false);
  return reply(
    raw,
    answer.response.status,
    requestIdOf(answer),
    addCostHeaders(answer.context, cost, { 'content-type': answer.contentType || 'text/plain' }),
  );
};

/**
 * A JSON answer read whole and parsed by the adaptor; one that is not JSON is a failed attempt. An
 * answer that is a task to poll (the adaptor's `task`) is polled to its end first (task-polling.ts).
 */
const parsedAnswer = async (answer: Answer): Promise<{ raw?: Buffer; parsed: ParsedResponse }> => {
  const raw = await readWhole(answer);
  const { adaptor, context } = answer;
  if (adaptor.task?.applies(answer.meta)) {
    const run = {
      adaptor,
      meta: answer.meta,
      upstream: context.deps.upstream,
      clientSignal: context.call.clientSignal,
      logger: context.deps.logger,
      requestId: context.call.requestId,
    };
    return { parsed: await pollTask(run, adaptor.task, raw) };
  }
  const body = safeJson(raw);
  if (body === undefined && answer.adaptor.gatherStream)
    return { raw, parsed: answer.adaptor.gatherStream(raw.toString('utf8'), answer.meta) };
  if (body === undefined)
    throw new AttemptFailure(
      relayError(502, 'bad_response', 'the upstream answered something that is not JSON'),
      true,
    );
  try {
    return { raw, parsed: answer.adaptor.parseResponse(body, answer.meta) };
  } catch (error) {
    // A provider that answers its errors with HTTP 200 (Baidu, Tencent, Spark…): failed like an error
    // status, so the next channel is tried and the channel's health counts it.
    if (error instanceof AppError && error.status >= 400)
      throw new AttemptFailure(
        scrubbedError(error, error.status, answer.meta.channel),
        isRetryableStatus(error.status),
      );
    throw error;
  }
};

/** The client's answer: the upstream's bytes from a pass-through provider, else the translation. */
const jsonReply = (answer: Answer, raw: Buffer | undefined, body: unknown, cost: number): RelayReply =>
  answer.adaptor.kind === 'pass-through' && raw
    ? reply(
        raw,
        answer.response.status,
        requestIdOf(answer),
        addCostHeaders(answer.context, cost, { 'content-type': answer.contentType || 'application/json' }),
      )
    : reply(
        JSON.stringify(body),
        200,
        requestIdOf(answer),
        addCostHeaders(answer.context, cost, { 'content-type': 'application/json' }),
      );

/** Images: priced per image by model, size and quality (pricing.ts), whatever the upstream counts. */
const imageAnswer = async (answer: Answer): Promise<RelayReply> => {
  const { raw, parsed } = await parsedAnswer(answer);
  const cost = imageQuota(answer.model, answer.context.call.request.body, answer.ratios);
  settle(answer, cost, NO_USAGE, false, false);
  return jsonReply(answer, raw, parsed.body, cost);
};

/** Chat, completions, embeddings, moderations: billed by the usage (or the local count). */
const jsonAnswer = async (answer: Answer): Promise<RelayReply> => {
  const { raw, parsed } = await parsedAnswer(answer);
  const usage = usageOrCount(answer, parsed.usage, parsed.text ?? '');
  const cost = usageQuota(usage, answer.ratios);
  settle(answer, cost, usage, false, answer.systemPromptReset);
  return jsonReply(answer, raw, parsed.body, cost);
};

/** The answer handlers, one per kind. */
export const ANSWERS: Readonly<Record<AnswerKind, (answer: Answer) => RelayReply | Promise<RelayReply>>> = {
  stream: streamAnswer,
  speech: speechAnswer,
  transcript: transcriptAnswer,
  image: imageAnswer,
  json: jsonAnswer,
};
