import { describe, expect, it } from 'vitest';
import { createChannelBreaker, type BreakerSettings, type BreakerTransition } from './channel-breaker.js';
import type { ChannelRow, RoutableChannel } from './relay-index.js';

const channel = (id: number): RoutableChannel => ({ row: { id } as ChannelRow, priority: 0, weight: 0 });
const A = channel(1);
const B = channel(2);
const C = channel(3);
/** The candidates in the order given (the breaker's part is what it leaves out and puts first). */
const asGiven = (candidates: readonly RoutableChannel[]) => candidates;
const ids = (order: readonly RoutableChannel[] | Promise<readonly RoutableChannel[]>) => {
  if (order instanceof Promise) throw new Error('no Redis here: the order is at once');
  return order.map((candidate) => candidate.row.id);
};

const setUp = (settings: Partial<BreakerSettings> = {}) => {
  const clock = { at: 1_000_000 };
  const moves: BreakerTransition[] = [];
  const breaker = createChannelBreaker({
    settings: () => ({ failures: 3, windowMs: 60_000, cooldownMs: 30_000, ...settings }),
    now: () => clock.at,
    onTransition: (move) => moves.push(move),
  });
  const route = () => ids(breaker.route([A, B, C], 3, asGiven));
  return { clock, breaker, route, moves };
};

describe('the channel breaker', () => {
  it('opens after the failures in a row within the window, and passes the channel over', () => {
    const { breaker, route } = setUp();
    breaker.failed(1);
    breaker.failed(1);
    expect(route()).toEqual([1, 2, 3]);
    expect(breaker.view(1)).toEqual({ state: 'closed', cooledUntil: 0 });
    breaker.failed(1);
    expect(route()).toEqual([2, 3]);
    expect(breaker.view(1)).toEqual({ state: 'open', cooledUntil: 1030 });
    expect(breaker.view(2).state).toBe('closed');
  });

  it('does not open on failures spread wider than the window, nor on failures a success broke', () => {
    const { clock, breaker, route } = setUp();
    breaker.failed(1);
    breaker.failed(1);
    clock.at += 60_001;
    breaker.failed(1);
    breaker.failed(1);
    expect(route()).toEqual([1, 2, 3]);
    breaker.succeeded(1);
    breaker.failed(1);
    breaker.failed(1);
    expect(route()).toEqual([1, 2, 3]);
    breaker.failed(1);
    expect(route()).toEqual([2, 3]);
  });

  it('lets exactly one probe through after the cooldown, first; its success closes the breaker', () => {
    const { clock, breaker, route } = setUp();
    for (let count = 0; count < 3; count += 1) breaker.failed(1);
    clock.at += 29_999;
    expect(route()).toEqual([2, 3]);
    clock.at += 1;
    expect(breaker.view(1).state).toBe('half_open');
    // The probe goes first, an attempt added to the order; the requests after it pass it over.
    expect(route()).toEqual([1, 2, 3]);
    expect(route()).toEqual([2, 3]);
    expect(route()).toEqual([2, 3]);
    breaker.succeeded(1);
    expect(breaker.view(1)).toEqual({ state: 'closed', cooledUntil: 0 });
    expect(route()).toEqual([1, 2, 3]);
    // Closed again, it counts from nothing.
    breaker.failed(1);
    breaker.failed(1);
    expect(route()).toEqual([1, 2, 3]);
  });

  it('opens again for the cooldown when the probe fails', () => {
    const { clock, breaker, route } = setUp();
    for (let count = 0; count < 3; count += 1) breaker.failed(1);
    clock.at += 30_000;
    expect(route()).toEqual([1, 2, 3]);
    clock.at += 5_000;
    breaker.failed(1);
    expect(breaker.view(1)).toEqual({ state: 'open', cooledUntil: 1065 });
    clock.at += 29_999;
    expect(route()).toEqual([2, 3]);
    clock.at += 1;
    expect(route()).toEqual([1, 2, 3]);
  });

  it('lets another probe go when the claimed one never came back within a cooldown', () => {
    const { clock, breaker, route } = setUp();
    for (let count = 0; count < 3; count += 1) breaker.failed(1);
    clock.at += 30_000;
    expect(route()).toEqual([1, 2, 3]);
    clock.at += 29_999;
    expect(route()).toEqual([2, 3]);
    clock.at += 1;
    expect(route()).toEqual([1, 2, 3]);
  });

  it('tries every channel when every one is cooling', () => {
    const { breaker } = setUp({ failures: 1 });
    breaker.failed(1);
    breaker.failed(2);
    expect(ids(breaker.route([A, B], 3, asGiven))).toEqual([1, 2]);
    expect(ids(breaker.route([A, B, C], 3, asGiven))).toEqual([3]);
  });

  it('probes one channel per request and orders the others as the strategy does', () => {
    const { clock, breaker } = setUp({ failures: 1 });
    breaker.failed(1);
    breaker.failed(2);
    clock.at += 30_000;
    const reversed = (candidates: readonly RoutableChannel[]) => [...candidates].reverse();
    expect(ids(breaker.route([A, B, C], 3, reversed))).toEqual([1, 3]);
    expect(ids(breaker.route([A, B, C], 3, reversed))).toEqual([2, 3]);
    expect(ids(breaker.route([A, B, C], 3, reversed))).toEqual([3]);
  });

  it('never opens with the breaker off (0 failures)', () => {
    const { breaker, route } = setUp({ failures: 0 });
    for (let count = 0; count < 10; count += 1) breaker.failed(1);
    expect(route()).toEqual([1, 2, 3]);
    expect(breaker.view(1).state).toBe('closed');
  });

  it('tells each transition once: cooled down when it opens, recovered when the probe closes it', () => {
    const { clock, breaker, route, moves } = setUp();
    for (let count = 0; count < 3; count += 1) breaker.failed(1);
    expect(moves).toEqual([{ kind: 'cooled_down', channelId: 1, failures: 3, until: 1030 }]);
    // A failed probe opens it again: the same cooldown, not another transition.
    clock.at += 30_000;
    expect(route()).toEqual([1, 2, 3]);
    breaker.failed(1);
    breaker.failed(1);
    expect(moves).toHaveLength(1);
    clock.at += 30_000;
    expect(route()).toEqual([1, 2, 3]);
    breaker.succeeded(1);
    breaker.succeeded(1);
    breaker.succeeded(2);
    expect(moves.slice(1)).toEqual([{ kind: 'recovered', channelId: 1 }]);
  });
});
