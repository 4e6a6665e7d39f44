import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { parseJsonRelayRequest } from '../request/relay-request.js';
import { createChannelRouter, type RoutedCall, type RoutingOptions } from './channel-router.js';
import type { ChannelRow, RoutableChannel } from './relay-index.js';

const channel = (id: number): RoutableChannel => ({ row: { id } as ChannelRow, priority: 0, weight: 0 });
const CANDIDATES = [channel(1), channel(2), channel(3)];

const OPTIONS: RoutingOptions = {
  RetryTimes: 2,
  RoutingStrategy: 'weighted_random',
  GroupRoutingStrategies: '{"vip":"round_robin"}',
  ConversationAffinityEnabled: true,
  ConversationAffinityTtlSeconds: 300,
};

const input = (group: string, topic: string) => ({
  group,
  tokenId: 7,
  request: parseJsonRelayRequest(
    { path: '/v1/chat/completions', mode: 'chat' },
    Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: topic }] })),
    'application/json',
    undefined,
  ),
  clientHeaders: {},
});

const routed = (call: RoutedCall | Promise<RoutedCall>): RoutedCall => {
  if (call instanceof Promise) throw new Error('without Redis the route is at once');
  return call;
};

describe('the channel router', () => {
  it('says which strategy ordered the tier: the group’s own, else RoutingStrategy', () => {
    const router = createChannelRouter({});
    const order = (
      rank: (c: readonly RoutableChannel[], n: number) => readonly RoutableChannel[],
      n: number,
    ) => rank(CANDIDATES, n);
    expect(routed(router.route(OPTIONS, input('vip', 'a'), order)).strategy).toBe('round_robin');
    expect(routed(router.route(OPTIONS, input('default', 'a'), order)).strategy).toBe('weighted_random');
    const everyone = { ...OPTIONS, RoutingStrategy: 'least_in_flight' };
    expect(routed(router.route(everyone, input('default', 'a'), order)).strategy).toBe('least_in_flight');
  });

  it('pins a conversation to the channel that answered, and says affinity chose it next time', () => {
    const router = createChannelRouter({ registry: new Registry() });
    const order = (
      rank: (c: readonly RoutableChannel[], n: number) => readonly RoutableChannel[],
      n: number,
    ) => rank(CANDIDATES, n);
    const first = routed(router.route(OPTIONS, input('default', 'pin me'), order));
    expect(first.affinity).toBe(false);
    expect(first.order).toHaveLength(3);
    // The second channel of the order answers (the first failed over).
    first.route.picked(2, { channel: {} as never, index: 0 });
    const reply = first.route.answered({ status: 200, headers: {}, body: '' });
    expect(router.state.loads.get(2)?.inFlight).toBe(1);
    reply.onEnd?.();
    expect(router.state.loads.get(2)?.inFlight).toBe(0);
    expect(router.state.loads.get(2)?.samples).toBe(1);
    for (let turn = 0; turn < 20; turn += 1) {
      const next = routed(router.route(OPTIONS, input('default', 'pin me'), order));
      expect(next.affinity).toBe(true);
      expect(next.order[0]?.row.id).toBe(2);
    }
    // Affinity off: nothing is pinned or looked up.
    const off = routed(
      router.route({ ...OPTIONS, ConversationAffinityEnabled: false }, input('default', 'pin me'), order),
    );
    expect(off.affinity).toBe(false);
    expect(off.route.conversation).toBeUndefined();
  });
});
