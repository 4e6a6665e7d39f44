import type { RoutingStrategyName } from '@sluice/contract/routing-strategies';
import { loadOf, type StrategyState } from './channel-load.js';
import type { RoutableChannel } from './relay-index.js';

/** Weight 0 (one-api's default) counts as 1, so unweighted channels share a tier evenly. */
const weightOf = (channel: RoutableChannel): number => (channel.weight > 0 ? channel.weight : 1);

/** A weighted random order of one priority tier (each pick without replacement). */
const weightedOrder = (pool: RoutableChannel[], random: () => number): RoutableChannel[] => {
  const order: RoutableChannel[] = [];
  while (pool.length > 0) {
    const total = pool.reduce((sum, channel) => sum + weightOf(channel), 0);
    let point = random() * total;
    let index = 0;
    for (; index < pool.length - 1; index += 1) {
      point -= weightOf(pool[index] as RoutableChannel);
      if (point < 0) break;
    }
    order.push(...pool.splice(index, 1));
  }
  return order;
};

/**
 * Smooth weighted round-robin (nginx's): each channel's running weight grows by its weight, the
 * largest goes first and gives back the tier's total. Over any run of `total` requests each channel
 * is first exactly `weight` times, spread out. The others follow by running weight (fallbacks).
 */
const roundRobinOrder = (pool: RoutableChannel[], state: StrategyState): RoutableChannel[] => {
  const tier = pool.map((channel) => channel.row.id).join(',');
  let running = state.rounds.get(tier);
  if (!running) {
    running = new Map();
    state.rounds.set(tier, running);
  }
  let total = 0;
  let best: RoutableChannel | undefined;
  let bestWeight = -Infinity;
  for (const channel of pool) {
    const weight = (running.get(channel.row.id) ?? 0) + weightOf(channel);
    running.set(channel.row.id, weight);
    total += weightOf(channel);
    if (weight > bestWeight) {
      best = channel;
      bestWeight = weight;
    }
  }
  if (!best) return pool;
  running.set(best.row.id, bestWeight - total);
  const rounds = running;
  const chosen = best;
  const rest = pool.filter((channel) => channel !== chosen);
  rest.sort((left, right) => (rounds.get(right.row.id) ?? 0) - (rounds.get(left.row.id) ?? 0));
  return [chosen, ...rest];
};

/** A tried channel with fewer requests in flight here (per unit of weight) first; ties weighted random. */
const leastInFlightOrder = (pool: RoutableChannel[], state: StrategyState, random: () => number) =>
  weightedOrder(pool, random)
    .map((channel) => ({ channel, load: loadOf(state, channel.row.id).inFlight / weightOf(channel) }))
    .sort((left, right) => left.load - right.load)
    .map((entry) => entry.channel);

/** A share of requests ordered at random, so a channel once slow is measured again. */
export const LATENCY_EXPLORATION = 0.05;

/** The lowest first-byte time first (a channel not measured yet before all); ties weighted random. */
const lowestLatencyOrder = (pool: RoutableChannel[], state: StrategyState, random: () => number) => {
  const shuffled = weightedOrder(pool, random);
  if (random() < LATENCY_EXPLORATION) return shuffled;
  return shuffled
    .map((channel) => ({ channel, load: loadOf(state, channel.row.id) }))
    .sort(
      (left, right) =>
        (left.load.samples === 0 ? -1 : left.load.latencyMs) -
        (right.load.samples === 0 ? -1 : right.load.latencyMs),
    )
    .map((entry) => entry.channel);
};

/** How one request's tiers are ordered: the group's strategy, and the channel its conversation is pinned to. */
export interface TierRouting {
  readonly strategy: RoutingStrategyName;
  readonly state: StrategyState;
  /** The conversation's channel: first when it is in the top tier the request reaches. */
  readonly pinned?: number | undefined;
}

const tierOrder = (
  pool: RoutableChannel[],
  routing: TierRouting | undefined,
  random: () => number,
): RoutableChannel[] => {
  if (!routing || pool.length === 1) return weightedOrder(pool, random);
  switch (routing.strategy) {
    case 'round_robin':
      return roundRobinOrder(pool, routing.state);
    case 'least_in_flight':
      return leastInFlightOrder(pool, routing.state, random);
    case 'lowest_latency':
      return lowestLatencyOrder(pool, routing.state, random);
    default:
      return weightedOrder(pool, random);
  }
};

/** The pinned channel first, then the tier's others (a pinned request does not move the round-robin). */
const pinnedOrder = (
  pool: RoutableChannel[],
  routing: TierRouting,
  random: () => number,
): RoutableChannel[] | undefined => {
  const at = pool.findIndex((channel) => channel.row.id === routing.pinned);
  if (at < 0) return undefined;
  const [pinned] = pool.splice(at, 1) as [RoutableChannel];
  const rest =
    routing.strategy === 'round_robin' ? { ...routing, strategy: 'weighted_random' as const } : routing;
  return [pinned, ...(pool.length > 0 ? tierOrder(pool, rest, random) : [])];
};

const byPriority = (candidates: readonly RoutableChannel[]): readonly RoutableChannel[] => {
  for (let index = 1; index < candidates.length; index += 1)
    if ((candidates[index] as RoutableChannel).priority > (candidates[index - 1] as RoutableChannel).priority)
      return [...candidates].sort((left, right) => right.priority - left.priority);
  return candidates;
};

/**
 * The order in which a request tries channels: the highest priority tier first, ordered inside by
 * the group's strategy (weighted random without one), then the next tier down; `attempts` = 1 +
 * RetryTimes. A conversation's pinned channel goes first when it is in the top tier. A failed
 * channel is never tried twice for one request. Only the tiers the attempts reach are looked at
 * (the routing index hands the candidates over highest priority first).
 */
export const attemptOrder = (
  candidates: readonly RoutableChannel[],
  attempts: number,
  random: () => number = Math.random,
  routing?: TierRouting,
): RoutableChannel[] => {
  const sorted = byPriority(candidates);
  const wanted = Math.max(1, attempts);
  // One attempt (RetryTimes 0, the default) from a top tier of one: nothing to order.
  const first = sorted[0];
  if (
    wanted === 1 &&
    first &&
    (sorted.length === 1 || (sorted[1] as RoutableChannel).priority < first.priority)
  )
    return [first];
  const order: RoutableChannel[] = [];
  for (let start = 0; start < sorted.length && order.length < wanted;) {
    const priority = (sorted[start] as RoutableChannel).priority;
    let end = start + 1;
    while (end < sorted.length && (sorted[end] as RoutableChannel).priority === priority) end += 1;
    const pool = sorted.slice(start, end);
    const pinned =
      start === 0 && routing?.pinned !== undefined ? pinnedOrder(pool, routing, random) : undefined;
    order.push(...(pinned ?? tierOrder(pool, routing, random)));
    start = end;
  }
  return order.slice(0, wanted);
};
