import { describe, expect, it } from 'vitest';
import { createStrategyState, loadOf, observeLatency } from './channel-load.js';
import type { ChannelRow, RoutableChannel } from './relay-index.js';
import { attemptOrder, LATENCY_EXPLORATION, type TierRouting } from './select-channel.js';

const channel = (id: number, weight = 0, priority = 0): RoutableChannel => ({
  row: { id } as ChannelRow,
  priority,
  weight,
});

/** A seeded random (mulberry32): the same draws on every run. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let value = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
  return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
};

/** How often each channel went first over `requests` orders. */
const firsts = (order: () => readonly RoutableChannel[], requests = 1000): Record<number, number> => {
  const counts: Record<number, number> = {};
  for (let index = 0; index < requests; index += 1) {
    const first = order()[0]?.row.id ?? 0;
    counts[first] = (counts[first] ?? 0) + 1;
  }
  return counts;
};

const ids = (order: readonly RoutableChannel[]) => order.map((candidate) => candidate.row.id);

describe('attemptOrder', () => {
  const tier = [channel(1, 1), channel(2, 3), channel(3, 6)];

  it('weighted random: each channel first in proportion to its weight, within bounds over 1,000', () => {
    const random = seeded(7);
    const counts = firsts(() => attemptOrder(tier, 1, random));
    // Expected 100, 300, 600; four standard deviations of a binomial(1000, p) around each.
    expect(counts[1]).toBeGreaterThan(100 - 4 * Math.sqrt(1000 * 0.1 * 0.9));
    expect(counts[1]).toBeLessThan(100 + 4 * Math.sqrt(1000 * 0.1 * 0.9));
    expect(counts[2]).toBeGreaterThan(300 - 4 * Math.sqrt(1000 * 0.3 * 0.7));
    expect(counts[2]).toBeLessThan(300 + 4 * Math.sqrt(1000 * 0.3 * 0.7));
    expect(counts[3]).toBeGreaterThan(600 - 4 * Math.sqrt(1000 * 0.6 * 0.4));
    expect(counts[3]).toBeLessThan(600 + 4 * Math.sqrt(1000 * 0.6 * 0.4));
  });

  it('round-robin: exactly in proportion to the weights over 1,000, spread out, the others behind', () => {
    const routing: TierRouting = { strategy: 'round_robin', state: createStrategyState() };
    const sequence: number[] = [];
    const counts = firsts(() => {
      const order = attemptOrder(tier, 3, Math.random, routing);
      expect(new Set(ids(order)).size).toBe(3);
      sequence.push(order[0]?.row.id ?? 0);
      return order;
    });
    expect(counts).toEqual({ 1: 100, 2: 300, 3: 600 });
    // Smooth: in every run of 10 the weights hold exactly, and the heaviest never goes 3 times in a row.
    for (let start = 0; start < 1000; start += 10) {
      const run = sequence.slice(start, start + 10);
      expect(run.filter((id) => id === 3)).toHaveLength(6);
    }
    expect(sequence.join(',')).not.toContain('3,3,3');
  });

  it('round-robin over equal weights takes turns exactly', () => {
    const routing: TierRouting = { strategy: 'round_robin', state: createStrategyState() };
    const even = [channel(1), channel(2), channel(3), channel(4)];
    expect(firsts(() => attemptOrder(even, 1, Math.random, routing), 1000)).toEqual({
      1: 250,
      2: 250,
      3: 250,
      4: 250,
    });
  });

  it('least in flight: the channel with the fewest requests in flight here first', () => {
    const state = createStrategyState();
    const routing: TierRouting = { strategy: 'least_in_flight', state };
    loadOf(state, 1).inFlight = 5;
    loadOf(state, 2).inFlight = 1;
    loadOf(state, 3).inFlight = 3;
    const even = [channel(1), channel(2), channel(3)];
    expect(ids(attemptOrder(even, 3, Math.random, routing))).toEqual([2, 3, 1]);
    // Per unit of weight: 3 in flight on a weight of 6 is less than 1 on a weight of 1.
    expect(ids(attemptOrder([channel(2, 1), channel(3, 6)], 2, Math.random, routing))).toEqual([3, 2]);
  });

  it('lowest latency: the fastest moving average first, a channel not measured yet before all', () => {
    const state = createStrategyState();
    const routing: TierRouting = { strategy: 'lowest_latency', state };
    observeLatency(state, 1, 400);
    observeLatency(state, 2, 20);
    const three = [channel(1), channel(2), channel(3)];
    const random = seeded(3);
    expect(firsts(() => attemptOrder(three, 3, random, routing), 200)[3]).toBeGreaterThan(180);
    observeLatency(state, 3, 60);
    const counts = firsts(() => attemptOrder(three, 3, random, routing));
    // Only the exploring share (5 %) may put another first.
    expect(counts[2]).toBeGreaterThan(1000 * (1 - LATENCY_EXPLORATION) - 30);
    expect(counts[1] ?? 0).toBeLessThan(1000 * LATENCY_EXPLORATION);
  });

  it('moves the average by a fifth of each new first-byte time', () => {
    const state = createStrategyState();
    observeLatency(state, 1, 100);
    observeLatency(state, 1, 200);
    expect(loadOf(state, 1).latencyMs).toBeCloseTo(120);
    expect(loadOf(state, 1).samples).toBe(2);
  });

  it('puts the pinned channel first when it is in the top tier, and not otherwise', () => {
    const state = createStrategyState();
    const candidates = [channel(1, 0, 10), channel(2, 0, 10), channel(3, 0, 5)];
    for (const strategy of ['weighted_random', 'round_robin', 'least_in_flight', 'lowest_latency'] as const) {
      const order = attemptOrder(candidates, 3, Math.random, { strategy, state, pinned: 2 });
      expect(ids(order)).toEqual([2, 1, 3]);
      expect(ids(attemptOrder(candidates, 1, Math.random, { strategy, state, pinned: 2 }))).toEqual([2]);
    }
    // Pinned to a lower tier: the top tier goes first as ever.
    const low = attemptOrder(candidates, 3, Math.random, { strategy: 'round_robin', state, pinned: 3 });
    expect(ids(low)[2]).toBe(3);
  });

  it('a top tier of one goes without a strategy, whatever the request asks', () => {
    const state = createStrategyState();
    const alone = [channel(9, 0, 10), channel(1, 0, 5)];
    const order = attemptOrder(alone, 1, () => 0.5, { strategy: 'round_robin', state });
    expect(ids(order)).toEqual([9]);
    expect(state.rounds.size).toBe(0);
  });
});
