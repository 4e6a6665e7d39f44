import type { Logger } from 'pino';
import { relayError, type AppError } from '../../lib/app-error.js';
import type { OptionStore } from '../../services/option-store.js';
import type { AdaptorSettings, RelayRequestMeta, Usage } from '../providers/adaptor.js';
import { providerOf } from '../providers/registry.js';
import { billableUsage } from '../metering/billable-usage.js';
import type { Billing } from '../metering/billing.js';
import type { Payer } from '../metering/settlement-batch.js';
import { channelMetaOf, mapModel, withSystemPrompt } from '../routing/channel-meta.js';
import { checkImageRequest } from '../request/image-rules.js';
import type { ClientLink } from '../http/client-link.js';
import type { KeyAuth } from '../request/key-auth.js';
import {
  imageQuota,
  ratioText,
  ratiosFor,
  reservationFor,
  usageQuota,
  warnIfUnpriced,
  type Ratios,
} from '../metering/pricing.js';
import type { RoutableChannel } from '../routing/relay-index.js';
import type { RelayRequest } from '../request/relay-request.js';
import { relayStream } from '../stream/stream-relay.js';
import { estimatePromptTokens, promptTokensOf } from '../metering/prompt-tokens.js';
import { passedOn, reply, safeJson, type RelayReply } from './relay-response.js';
import { countTextTokens } from '../metering/token-counter.js';
import type { Upstream } from '../upstream/upstream.js';
import {
  AttemptFailure,
  finalFailure,
  isRetryableStatus,
  transportFailure,
  unsupportedChannel,
  upstreamError,
} from './upstream-error.js';

export interface PipelineDeps {
  readonly options: OptionStore;
  readonly billing: Billing;
  readonly upstream: Upstream;
  readonly logger: Logger;
  /** Told of every failed attempt (automatic channel disabling). */
  readonly onChannelFailure: (channelId: number, error: AppError) => void;
  readonly adaptorSettings?: AdaptorSettings;
  /** Told of a first attempt that succeeded (ENABLE_METRIC's success rate). */
  readonly onChannelSuccess?: (channelId: number) => void;
  /** Told the payer's fresh quota and the request's estimated cost before each request (quota reminders). */
  readonly onQuotaChecked?: (userId: number, quota: number, estimate: number) => void;
  /** Keeps settlements that run after the response, so shutdown and tests can wait for them. */
  readonly track: (work: Promise<unknown>) => void;
}

export interface RelayCall {
  readonly auth: KeyAuth;
  readonly request: RelayRequest;
  readonly order: readonly RoutableChannel[];
  readonly requestId: string;
  readonly clientSignal: ClientLink;
  readonly clientHeaders: Readonly<Record<string, string>>;
}

/** Runs one relay request through its channels in order; returns the client's response. */
export const runPipeline = async (deps: PipelineDeps, call: RelayCall): Promise<RelayReply> => {
  const { request, auth } = call;
  const options = deps.options.values;
  const group = auth.user.group || 'default';
  const started = performance.now();
  const firstRow = call.order[0]?.row;
  if (!firstRow)
    throw relayError(
      503,
      'no_channel',
      `no available channel for model ${request.model} under group ${group}`,
    );
  const firstModel = mapModel(firstRow, request.model);
  const approximate = options.ApproximateTokenEnabled;
  // The reservation only needs an estimate (it is settled against the real usage); the tokenizer runs
  // only when an upstream gives no usage, which keeps its CPU and its tables off the hot path.
  const promptEstimate = estimatePromptTokens(request);
  let counted: number | undefined;
  const localPromptTokens = (): number => (counted ??= promptTokensOf(request, firstModel, approximate));
  const payer: Payer = {
    userId: auth.user.id,
    tokenId: auth.token.id,
    unlimited: Boolean(auth.token.unlimited_quota),
  };
  const estimate = reservationFor(
    request,
    firstModel,
    promptEstimate,
    ratiosFor(firstModel, firstRow.type, group, options),
    options.PreConsumedQuota,
  );
  const quota = deps.billing.freshQuota(payer.userId) ?? (await deps.billing.userQuota(payer.userId));
  deps.onQuotaChecked?.(payer.userId, quota, estimate);
  if (quota <= 0 || quota < estimate)
    throw relayError(403, 'insufficient_user_quota', 'user quota is not enough');
  const trusted = quota > 100 * estimate && (payer.unlimited || auth.token.remain_quota > 100 * estimate);
  const reserved = trusted ? 0 : estimate;
  if (reserved > 0) await deps.billing.reserve(payer, reserved);

  const settle = (
    row: RoutableChannel['row'],
    model: string,
    ratios: Ratios,
    cost: number,
    usage: Usage,
    stream: boolean,
    reset: boolean,
  ) =>
    // One promise per batch of settlements: `track` keeps it once, and logs a batch that failed.
    deps.track(
      deps.billing.settle({
        payer,
        username: auth.user.username,
        tokenName: auth.token.name ?? '',
        channelId: row.id,
        preQuota: reserved,
        quota: cost,
        log: options.LogConsumeEnabled
          ? {
              model,
              promptTokens: usage.prompt_tokens,
              completionTokens: usage.completion_tokens,
              content: ratioText(ratios) + (reset ? ' (system prompt reset)' : ''),
              requestId: call.requestId,
              elapsedMs: Math.round(performance.now() - started),
              stream,
              systemPromptReset: reset,
            }
          : undefined,
      }),
    );

  let failure: AppError | undefined;
  for (const candidate of call.order) {
    try {
      const answer = await attempt(candidate.row);
      if (failure === undefined) deps.onChannelSuccess?.(candidate.row.id);
      return answer;
    } catch (error) {
      if (!(error instanceof AttemptFailure)) {
        await deps.billing.release(payer, reserved);
        throw error;
      }
      failure = error.error;
      // A kind of request the channel's type cannot take says nothing about the channel's health.
      if (error.error.code !== 'unsupported_channel_type')
        deps.onChannelFailure(candidate.row.id, error.error);
      deps.logger.warn(
        {
          requestId: call.requestId,
          channel: candidate.row.id,
          status: error.error.status,
          message: error.error.message,
        },
        'upstream attempt failed',
      );
      if (!error.retryable) break;
    }
  }
  await deps.billing.release(payer, reserved);
  throw finalFailure(failure, request.model, group);

  async function attempt(row: RoutableChannel['row']): Promise<RelayReply> {
    const provider = providerOf(row.type);
    const adaptor = provider?.adaptor;
    if (!adaptor || !adaptor.modes.includes(request.mode)) throw unsupportedChannel(row.type, request.mode);
    const model = mapModel(row, request.model);
    // As one-api: checked against the model the channel maps to; a 400, whichever channel is next.
    if (request.mode === 'images') checkImageRequest(model, request.body);
    const systemPrompt = request.mode === 'chat' ? (row.system_prompt ?? '').trim() : '';
    const channel = channelMetaOf(row, provider);
    const body = systemPrompt ? withSystemPrompt(request.body, systemPrompt) : request.body;
    const multipart = request.mode === 'transcription' || request.mode === 'translation';
    const meta: RelayRequestMeta = {
      mode: request.mode,
      path: request.path,
      model,
      stream: request.stream,
      channel,
      body,
      clientHeaders: call.clientHeaders,
      settings: deps.adaptorSettings,
      raw:
        adaptor.kind === 'pass-through' && model === request.model && !systemPrompt && !multipart
          ? request.raw
          : undefined,
    };
    const upstreamRequest = adaptor.buildRequest(body, meta);
    const outgoing = multipart
      ? {
          ...upstreamRequest,
          headers: { ...upstreamRequest.headers, 'content-type': request.contentType },
          body: request.raw,
        }
      : upstreamRequest;
    let response;
    try {
      response = await deps.upstream.send(outgoing, call.clientSignal);
    } catch (error) {
      throw transportFailure(error, call.clientSignal.aborted);
    }
    const { body: answer } = response;
    // The whole answer; one that breaks off is a failed attempt like one that never came.
    const readWhole = () =>
      answer.readAll().catch((error: unknown) => {
        throw transportFailure(error, call.clientSignal.aborted);
      });
    const contentType = response.headers['content-type'] ?? '';
    const streamWanted = request.stream && request.mode !== 'speech';
    if (
      response.status < 200 ||
      response.status > 299 ||
      (streamWanted && contentType.startsWith('application/json'))
    ) {
      const raw = (await response.body.readAll(1024 * 1024).catch(() => Buffer.alloc(0))).toString('utf8');
      const status = response.status >= 200 && response.status <= 299 ? 500 : response.status;
      throw new AttemptFailure(upstreamError(status, raw, adaptor, channel), isRetryableStatus(status));
    }
    const ratios = ratiosFor(model, row.type, group, options);
    warnIfUnpriced(ratios, model, deps.logger);
    const reset = systemPrompt !== '';
    const usageOrCount = (usage: Usage | undefined, text: string): Usage =>
      billableUsage(usage, text, {
        chat: request.mode === 'chat',
        promptTokens: localPromptTokens,
        textTokens: (generated) => countTextTokens(generated, model, approximate),
      });

    if (streamWanted) {
      const stream = relayStream({
        adaptor,
        meta,
        upstream: response,
        clientWantsUsage: request.clientWantsUsage,
        abortUpstream: () => response.body.destroy(),
        onFinish: (outcome) => {
          const usage = usageOrCount(outcome.usage, outcome.text);
          settle(row, model, ratios, usageQuota(usage, ratios), usage, true, reset);
        },
      });
      // An upstream that answered at once (its end already here) is answered as one body.
      return reply(stream.whole() ?? stream, 200, call.requestId, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
      });
    }

    if (request.mode === 'speech') {
      // Priced by the input, as one-api; the audio streams back, billed once the upstream delivered it.
      const zero = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
      const audio = passedOn(answer, (delivered) =>
        delivered
          ? settle(row, model, ratios, reserved > 0 ? reserved : estimate, zero, false, false)
          : deps.track(deps.billing.release(payer, reserved)),
      );
      return reply(audio, response.status, call.requestId, { 'content-type': contentType || 'audio/mpeg' });
    }

    const raw = await readWhole();
    if (multipart) {
      const transcript = contentType.includes('json')
        ? (safeJson(raw) as { text?: unknown } | undefined)?.text
        : raw.toString('utf8');
      const text = typeof transcript === 'string' ? transcript : '';
      const tokens = countTextTokens(text, model, approximate);
      const usage = { prompt_tokens: 0, completion_tokens: tokens, total_tokens: tokens };
      settle(row, model, ratios, Math.ceil(tokens * ratios.model * ratios.group), usage, false, false);
      return reply(raw, response.status, call.requestId, { 'content-type': contentType || 'text/plain' });
    }
    const parsedBody = safeJson(raw);
    if (parsedBody === undefined)
      throw new AttemptFailure(
        relayError(502, 'bad_response', 'the upstream answered something that is not JSON'),
        true,
      );
    const parsed = adaptor.parseResponse(parsedBody, meta);
    if (request.mode === 'images') {
      const cost = imageQuota(model, request.body, ratios);
      settle(
        row,
        model,
        ratios,
        cost,
        { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        false,
        false,
      );
    } else {
      const usage = usageOrCount(parsed.usage, parsed.text ?? '');
      settle(row, model, ratios, usageQuota(usage, ratios), usage, false, reset);
    }
    return adaptor.kind === 'pass-through'
      ? reply(raw, response.status, call.requestId, { 'content-type': contentType || 'application/json' })
      : reply(JSON.stringify(parsed.body), 200, call.requestId, { 'content-type': 'application/json' });
  }
};
