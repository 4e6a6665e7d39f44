import { CHANNEL_STATUS } from '@sluice/contract/statuses';
import type { Kysely } from 'kysely';
import type { Config } from '../../config/env.js';
import type { Tables } from '../../db/tables.js';
import { relayError } from '../../lib/app-error.js';
import type { ChangeFeed } from '../../services/change-feed.js';
import type { ClientLink } from '../http/client-link.js';
import type { KeyAuth } from './key-auth.js';
import { runPipeline } from '../pipeline/pipeline.js';
import type { PipelineDeps } from '../pipeline/relay-context.js';
import type { RelayIndex, RoutableChannel } from '../routing/relay-index.js';
import { parseJsonRelayRequest, readRelayRequest, type RelayRoute } from './relay-request.js';
import { reply, type RelayReply } from '../pipeline/relay-response.js';
import { promptTokensOf } from '../metering/prompt-tokens.js';
import { readClientRequest } from './client-request.js';
import { attemptOrder } from '../routing/select-channel.js';

export interface RelayRouteDeps extends PipelineDeps {
  readonly config: Config;
  readonly db: Kysely<Tables>;
  readonly index: RelayIndex;
  readonly changes: ChangeFeed;
}

export interface RelayInput {
  readonly route: RelayRoute;
  readonly auth: KeyAuth;
  /** The body as the client sent it (inflated when it was gzip-encoded). */
  readonly raw: Uint8Array;
  readonly contentType: string;
  /** The model named in the path (`/v1/engines/{model}/embeddings`). */
  readonly pathModel: string | undefined;
  readonly requestId: string;
  readonly clientSignal: ClientLink;
  /** The client headers some adaptors pass on (anthropic-version, anthropic-beta). */
  readonly clientHeaders: Readonly<Record<string, string>>;
}

/** The admin's forced channel (the `sk-<key>-<channelId>` suffix). */
const forcedChannel = async (
  deps: RelayRouteDeps,
  channelId: number,
): Promise<readonly RoutableChannel[]> => {
  const row = await deps.index.channel(channelId);
  if (!row) throw relayError(400, 'invalid_channel', 'invalid channel id');
  if (row.status !== CHANNEL_STATUS.enabled)
    throw relayError(403, 'channel_disabled', 'this channel is disabled');
  return [{ row, priority: row.priority ?? 0, weight: row.weight ?? 0 }];
};

/**
 * The channels a request may try, in order: the admin's forced channel, or the routing table's
 * choice (at once when the table is in memory).
 */
const channelsFor = (
  deps: RelayRouteDeps,
  auth: KeyAuth,
  model: string,
): readonly RoutableChannel[] | Promise<readonly RoutableChannel[]> => {
  if (auth.channelId !== undefined) return forcedChannel(deps, auth.channelId);
  const group = auth.user.group || 'default';
  const order = (candidates: readonly RoutableChannel[]) => {
    if (candidates.length === 0)
      throw relayError(503, 'no_channel', `no available channel for model ${model} under group ${group}`);
    return attemptOrder(candidates, 1 + Math.max(0, deps.options.values.RetryTimes));
  };
  const cached = deps.index.peekCandidates(group, model);
  return cached ? order(cached) : deps.index.candidates(group, model).then(order);
};

/** One authenticated relay request: validated, checked against the key's models, routed, relayed. */
export const dispatchRelay = async (deps: RelayRouteDeps, input: RelayInput): Promise<RelayReply> => {
  const { auth, route } = input;
  const read = route.client
    ? readClientRequest({ ...route, client: route.client }, input.raw, input.pathModel, input.requestId)
    : undefined;
  const request =
    read?.request ??
    (route.multipart
      ? await readRelayRequest(route, input.raw, input.contentType, input.pathModel)
      : parseJsonRelayRequest(route, input.raw, input.contentType, input.pathModel));
  const allowed = auth.token.models
    ? auth.token.models
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== '')
    : [];
  if (allowed.length > 0 && !allowed.includes(request.model))
    throw relayError(403, 'model_not_allowed', `this token may not use model ${request.model}`);
  if (read?.kind === 'count') {
    const tokens = promptTokensOf(request, request.model, deps.options.values.ApproximateTokenEnabled);
    return reply(JSON.stringify(read.answer(tokens)), 200, input.requestId, {
      'content-type': 'application/json',
    });
  }
  const order = channelsFor(deps, auth, request.model);
  return runPipeline(deps, {
    client: read?.client,
    auth,
    request,
    order: order instanceof Promise ? await order : order,
    requestId: input.requestId,
    clientSignal: input.clientSignal,
    clientHeaders: input.clientHeaders,
  });
};
