import { relayError, type AppError } from '../../lib/app-error.js';
import type { LimitLease } from '../limits/rate-limiter.js';
import { admit } from '../metering/admission.js';
import { estimatePromptTokens, promptTokensOf } from '../metering/prompt-tokens.js';
import { attemptFailed, routingTrail } from '../metering/routing-trail.js';
import { mapModel } from '../routing/channel-meta.js';
import { runAttempt } from './attempt.js';
import type { RoutableChannel } from '../routing/relay-index.js';
import type { PipelineDeps, RelayCall, RequestContext } from './relay-context.js';
import type { RelayReply, UpstreamWait } from './relay-response.js';
import { AttemptFailure, finalFailure } from './upstream-error.js';

/**
 * Runs one relay request: the rate limits (limits/: a refused request costs nothing), admission
 * (the quota check and the reservation), then the attempts on the channels in order, then the
 * reservation given back if none answered. An attempt that answers settles the request itself
 * (attempt.ts and answers.ts): the real cost against the reservation, the real tokens against the
 * limits. Every route of every client format passes here (relay-dispatch.ts), and nothing is
 * relayed without.
 */
export const runPipeline = async (deps: PipelineDeps, call: RelayCall): Promise<RelayReply> => {
  const { request, auth } = call;
  const options = deps.options.values;
  const startedAt = performance.now();
  const firstRow = call.order[0]?.row;
  if (!firstRow)
    throw relayError(
      503,
      'no_channel',
      `no available channel for model ${request.model} under group ${auth.user.group || 'default'}`,
    );
  // The reservation needs only an estimate; the tokenizer runs only when an upstream gives no usage.
  const promptEstimate = estimatePromptTokens(request);
  const limited = deps.limiter?.admit(auth, options, call.requestId, promptEstimate);
  const lease = limited instanceof Promise ? await limited : limited;
  if (!lease) return relayAdmitted(deps, call, firstRow, startedAt, promptEstimate, undefined);
  let answered: RelayReply;
  try {
    answered = await relayAdmitted(deps, call, firstRow, startedAt, promptEstimate, lease);
  } catch (error) {
    // Nothing answered: the estimate is given back and the slot freed.
    lease.settle(0);
    lease.end();
    throw error;
  }
  Object.assign(answered.headers, lease.headers);
  return {
    status: answered.status,
    headers: answered.headers,
    body: answered.body,
    onEnd: lease.end,
    upstreamWait: answered.upstreamWait,
  };
};

const relayAdmitted = async (
  deps: PipelineDeps,
  call: RelayCall,
  firstRow: RoutableChannel['row'],
  startedAt: number,
  promptEstimate: number,
  lease: LimitLease | undefined,
): Promise<RelayReply> => {
  const { request, auth } = call;
  const options = deps.options.values;
  const firstModel = mapModel(firstRow, request.model);
  const admission = await admit({
    billing: deps.billing,
    options,
    auth,
    request,
    firstModel,
    firstType: firstRow.type,
    promptEstimate,
    onQuotaChecked: deps.onQuotaChecked,
  });
  let counted: number | undefined;
  // The attempts, for the log row: one object and one array per request.
  const trail = routingTrail(call.strategy, call.affinity);
  const upstreamWait: UpstreamWait = { failedMs: 0, sentAt: 0, body: undefined };
  const context: RequestContext = {
    deps,
    call,
    options,
    admission,
    charged: {
      payer: admission.payer,
      username: auth.user.username,
      tokenName: auth.token.name ?? '',
      reserved: admission.reserved,
      reservationId: admission.reservationId,
      requestId: call.requestId,
      startedAt,
      logged: options.LogConsumeEnabled,
      clientFormat: call.client?.format.name ?? 'openai',
      routing: trail,
    },
    localPromptTokens: () =>
      (counted ??= promptTokensOf(request, firstModel, options.ApproximateTokenEnabled)),
    lease,
    upstreamWait,
  };

  let failure: AppError | undefined;
  // RetryTimes + 1 attempts in all (the breaker's probe may add one to the order): a channel that
  // refused a key alone is tried again with its next key, a retry like any other.
  const attempts = Math.max(call.order.length, 1 + Math.max(0, options.RetryTimes));
  let at = 0;
  for (let attempt = 0; attempt < attempts && at < call.order.length; attempt += 1) {
    const candidate = call.order[at] as RoutableChannel;
    trail.startedAt = performance.now();
    trail.key = 0;
    try {
      const answer = await runAttempt(context, candidate.row);
      if (failure === undefined) deps.onChannelSuccess?.(candidate.row.id);
      deps.breaker?.succeeded(candidate.row.id);
      answer.upstreamWait = upstreamWait;
      return answer;
    } catch (error) {
      upstreamWait.failedMs += performance.now() - trail.startedAt;
      upstreamWait.body = undefined;
      if (!(error instanceof AttemptFailure)) {
        deps.track(deps.billing.release(admission.payer, admission.reserved, admission.reservationId));
        throw error;
      }
      failure = error.error;
      attemptFailed(trail, candidate.row.id, error.error);
      // A kind of request the channel's type cannot take says nothing about the channel's health.
      if (error.channelsFault) {
        deps.onChannelFailure(candidate.row.id, error.error);
        deps.breaker?.failed(candidate.row.id);
      }
      deps.logger.warn(
        {
          requestId: call.requestId,
          channel: candidate.row.id,
          status: error.error.status,
          message: error.error.message,
        },
        'upstream attempt failed',
      );
      // Its key refused, the channel still has another: the same channel again, before the next one
      // (before the client got a byte: a stream that opened never fails an attempt).
      if (error.anotherKey) continue;
      if (!error.retryable) break;
      at += 1;
    }
  }
  deps.track(deps.billing.release(admission.payer, admission.reserved, admission.reservationId));
  throw finalFailure(failure, request.model, admission.group);
};
