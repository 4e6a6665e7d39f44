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

const byPriority = (candidates: readonly RoutableChannel[]): readonly RoutableChannel[] => {
  for (let index = 1; index < candidates.length; index += 1)
    if ((candidates[index] as RoutableChannel).priority > (candidates[index - 1] as RoutableChannel).priority)
      return [...candidates].sort((left, right) => right.priority - left.priority);
  return candidates;
};

/**
 * The order in which a request tries channels: the highest priority tier first, weighted random
 * inside each tier, then the next tier down; `attempts` = 1 + RetryTimes. A failed channel is never
 * tried twice for one request. Only the tiers the attempts reach are looked at (the routing index
 * hands the candidates over highest priority first).
 */
export const attemptOrder = (
  candidates: readonly RoutableChannel[],
  attempts: number,
  random: () => number = Math.random,
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
    order.push(...weightedOrder(sorted.slice(start, end), random));
    start = end;
  }
  return order.slice(0, wanted);
};
