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
import type { CallRoute } from '../routing/call-route.js';
import type { ChannelRouter, Rank, RouteInput } from '../routing/channel-router.js';
import type { RoutingStrategyName } from '@sluice/contract/routing-strategies';

export interface RelayRouteDeps extends PipelineDeps {
  readonly config: Config;
  readonly db: Kysely<Tables>;
  readonly index: RelayIndex;
  readonly changes: ChangeFeed;
  /** The strategies, the conversations' pins and the cache-hit metrics (routing/channel-router.ts). */
  readonly router?: ChannelRouter | undefined;
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

/** The channels a request may try, in order, and how they were chosen (routing/channel-router.ts). */
interface Routed {
  readonly order: readonly RoutableChannel[];
  readonly strategy: RoutingStrategyName;
  readonly affinity: boolean;
  readonly route?: CallRoute | undefined;
}

/**
 * The channels a request may try, in order: the admin's forced channel, or the routing table's
 * choice by the group's strategy and the conversation's pin (at once when the table is in memory
 * and Redis is not asked).
 */
const channelsFor = (deps: RelayRouteDeps, auth: KeyAuth, input: RouteInput): Routed | Promise<Routed> => {
  if (auth.channelId !== undefined)
    return forcedChannel(deps, auth.channelId).then((order) => ({
      order,
      strategy: 'weighted_random',
      affinity: false,
    }));
  const { group, request } = input;
  const options = deps.options.values;
  const route = (candidates: readonly RoutableChannel[]): Routed | Promise<Routed> => {
    if (candidates.length === 0)
      throw relayError(
        503,
        'no_channel',
        `no available channel for model ${request.model} under group ${group}`,
      );
    const order = (rank: Rank, attempts: number) =>
      // A cooling channel is passed over, one whose cooldown ended goes first as a probe (the breaker).
      deps.breaker ? deps.breaker.route(candidates, attempts, rank) : rank(candidates, attempts);
    if (deps.router) return deps.router.route(options, input, order);
    const ordered = order(attemptOrder, 1 + Math.max(0, options.RetryTimes));
    const done = (list: readonly RoutableChannel[]): Routed => ({
      order: list,
      strategy: 'weighted_random',
      affinity: false,
    });
    return ordered instanceof Promise ? ordered.then(done) : done(ordered);
  };
  const cached = deps.index.peekCandidates(group, request.model);
  return cached ? route(cached) : deps.index.candidates(group, request.model).then(route);
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
  const routing = channelsFor(deps, auth, {
    group: auth.user.group || 'default',
    tokenId: auth.token.id,
    request,
    clientBody: read?.client?.body,
    clientHeaders: input.clientHeaders,
  });
  const routed = routing instanceof Promise ? await routing : routing;
  const replied = runPipeline(deps, {
    client: read?.client,
    auth,
    request,
    order: routed.order,
    strategy: routed.strategy,
    affinity: routed.affinity,
    route: routed.route,
    requestId: input.requestId,
    clientSignal: input.clientSignal,
    clientHeaders: input.clientHeaders,
  });
  if (!routed.route) return replied;
  // The route hears how the request ended: the answering channel measured and pinned, its slot freed.
  const callRoute = routed.route;
  return replied.then(
    (answer) => callRoute.answered(answer),
    (error: unknown) => {
      callRoute.failed();
      throw error;
    },
  );
};
