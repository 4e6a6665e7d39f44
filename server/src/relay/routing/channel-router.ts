import {
  readGroupRoutingStrategies,
  type GroupRoutingStrategies,
  type RoutingStrategyName,
} from '@sluice/contract/routing-strategies';
import type { Registry } from 'prom-client';
import type { ScriptRunner } from '../limits/redis-limit-store.js';
import type { RelayRequest } from '../request/relay-request.js';
import { createAffinityStore, type AffinityStore, type Pin } from './affinity-store.js';
import { registerCacheHitMetrics, type CacheHitMetrics } from './cache-hit-metrics.js';
import { CallRoute } from './call-route.js';
import type { LiveCounters } from './live-counters.js';
import { createStrategyState, type StrategyState } from './channel-load.js';
import { conversationKeyOf } from './conversation-key.js';
import type { RoutableChannel } from './relay-index.js';
import { attemptOrder } from './select-channel.js';

/** The options the routing reads (one snapshot per request). */
export interface RoutingOptions {
  readonly RetryTimes: number;
  readonly RoutingStrategy: string;
  readonly GroupRoutingStrategies: string;
  readonly ConversationAffinityEnabled: boolean;
  readonly ConversationAffinityTtlSeconds: number;
}

/** Orders candidates for a number of attempts (select-channel.ts `attemptOrder` with the request's plan). */
export type Rank = (candidates: readonly RoutableChannel[], attempts: number) => readonly RoutableChannel[];

/** What a request's routing decided: the channels in order, the strategy, whether affinity chose the first. */
export interface RoutedCall {
  readonly order: readonly RoutableChannel[];
  readonly strategy: RoutingStrategyName;
  readonly affinity: boolean;
  readonly route: CallRoute;
}

/** What names a request's conversation (conversation-key.ts). */
export interface RouteInput {
  readonly group: string;
  readonly tokenId: number;
  readonly request: RelayRequest;
  readonly clientBody?: Readonly<Record<string, unknown>> | undefined;
  readonly clientHeaders: Readonly<Record<string, string>>;
}

export interface ChannelRouter {
  readonly state: StrategyState;
  readonly affinity: AffinityStore;
  readonly cacheHits?: CacheHitMetrics | undefined;
  /** The group's strategy: GroupRoutingStrategies' entry, else RoutingStrategy. */
  strategyOf(options: RoutingOptions, group: string): RoutingStrategyName;
  /**
   * A request's route: its conversation's pin looked up (a promise only when it is asked of Redis),
   * then `order` ranks its candidates with `rank` (through the breaker, or `rank` itself).
   */
  route(
    options: RoutingOptions,
    input: RouteInput,
    order: (rank: Rank, attempts: number) => readonly RoutableChannel[] | Promise<readonly RoutableChannel[]>,
  ): RoutedCall | Promise<RoutedCall>;
}

/**
 * The routing of one Sluice instance: the strategies' state (in-flight counts and first-byte
 * times: this instance's), the conversations' pins (in memory, and in Redis when `run` is given),
 * the cache-hit metrics (on `registry`).
 */
export const createChannelRouter = (deps: {
  readonly run?: ScriptRunner | undefined;
  readonly registry?: Registry | undefined;
  readonly warn?: (error: unknown) => void;
  /** The live dashboard's counters (live-counters.ts), fed by each request's route. */
  readonly live?: LiveCounters | undefined;
}): ChannelRouter => {
  const state = createStrategyState();
  const affinity = createAffinityStore({ run: deps.run, warn: deps.warn });
  const cacheHits = deps.registry ? registerCacheHitMetrics(deps.registry) : undefined;
  const sinks = { state, affinity, cacheHits, live: deps.live };
  let readText: string | undefined;
  let groups: GroupRoutingStrategies = {};

  const strategyOf = (options: RoutingOptions, group: string): RoutingStrategyName => {
    if (options.GroupRoutingStrategies !== readText) {
      readText = options.GroupRoutingStrategies;
      const read = readGroupRoutingStrategies(readText);
      groups = read.ok ? read.value : {};
    }
    const strategy = groups[group] ?? options.RoutingStrategy;
    return strategy === 'round_robin' || strategy === 'least_in_flight' || strategy === 'lowest_latency'
      ? strategy
      : 'weighted_random';
  };

  const decide = (
    options: RoutingOptions,
    strategy: RoutingStrategyName,
    conversation: string | undefined,
    pin: Pin | undefined,
    order: (rank: Rank, attempts: number) => readonly RoutableChannel[] | Promise<readonly RoutableChannel[]>,
  ): RoutedCall | Promise<RoutedCall> => {
    // Weighted random without a pin needs no plan (attemptOrder's own default).
    const plan =
      strategy === 'weighted_random' && pin === undefined
        ? undefined
        : { strategy, state, pinned: pin?.channelId };
    const rank: Rank = plan
      ? (pool, attempts) => attemptOrder(pool, attempts, Math.random, plan)
      : attemptOrder;
    const route = new CallRoute(sinks, conversation, pin, options.ConversationAffinityTtlSeconds * 1000);
    const done = (ordered: readonly RoutableChannel[]): RoutedCall => ({
      order: ordered,
      strategy,
      affinity: pin !== undefined && ordered[0]?.row.id === pin.channelId,
      route,
    });
    const ordered = order(rank, 1 + Math.max(0, options.RetryTimes));
    return ordered instanceof Promise ? ordered.then(done) : done(ordered);
  };

  return {
    state,
    affinity,
    cacheHits,
    strategyOf,
    route: (options, input, order) => {
      const strategy = strategyOf(options, input.group);
      const conversation =
        options.ConversationAffinityEnabled && options.ConversationAffinityTtlSeconds > 0
          ? conversationKeyOf(input)
          : undefined;
      if (conversation === undefined) return decide(options, strategy, undefined, undefined, order);
      const pin = affinity.lookup(conversation, options.ConversationAffinityTtlSeconds * 1000);
      return pin instanceof Promise
        ? pin.then((found) => decide(options, strategy, conversation, found, order))
        : decide(options, strategy, conversation, pin, order);
    },
  };
};
