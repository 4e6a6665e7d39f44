import { describe, expect, it } from 'vitest';
import { readGroupRoutingStrategies } from './routing-strategies.js';

describe('the GroupRoutingStrategies option', () => {
  it('reads a map of groups to strategies, empty as none', () => {
    expect(readGroupRoutingStrategies('')).toEqual({ ok: true, value: {} });
    expect(readGroupRoutingStrategies('{"vip": "round_robin"}')).toEqual({
      ok: true,
      value: { vip: 'round_robin' },
    });
  });

  it('refuses what is not a map, an unknown strategy and a name no group has', () => {
    for (const bad of [
      '[]',
      'null',
      'not json',
      '{"vip": 1}',
      '{"": "round_robin"}',
      `{"${'g'.repeat(33)}": "round_robin"}`,
    ])
      expect(readGroupRoutingStrategies(bad).ok, bad).toBe(false);
  });
});
