import type { RoutableChannel } from './relay-index.js';

/** Weight 0 (one-api's default) counts as 1, so unweighted channels share a tier evenly. */
const weightOf = (channel: RoutableChannel): number => (channel.weight > 0 ? channel.weight : 1);

/** A weighted random order of one priority tier (each pick without replacement). */
const weightedOrder = (tier: RoutableChannel[], random: () => number): RoutableChannel[] => {
  const pool = [...tier];
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
 * The order in which a request tries channels: the highest priority tier first, weighted random
 * inside each tier, then the next tier down; `attempts` = 1 + RetryTimes. A failed channel is never
 * tried twice for one request.
 */
export const attemptOrder = (
  candidates: readonly RoutableChannel[],
  attempts: number,
  random: () => number = Math.random,
): RoutableChannel[] => {
  const tiers = new Map<number, RoutableChannel[]>();
  for (const channel of candidates) {
    const tier = tiers.get(channel.priority) ?? [];
    tier.push(channel);
    tiers.set(channel.priority, tier);
  }
  const order: RoutableChannel[] = [];
  for (const priority of [...tiers.keys()].sort((left, right) => right - left)) {
    order.push(...weightedOrder(tiers.get(priority) ?? [], random));
    if (order.length >= attempts) break;
  }
  return order.slice(0, Math.max(1, attempts));
};
