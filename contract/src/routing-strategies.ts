import { parseJson } from './parse-json.js';

/**
 * How the relay spreads requests over the channels of one priority tier (server
 * relay/routing/select-channel.ts): weighted random (one-api's), smooth weighted round-robin, the
 * fewest requests in flight on this instance, the lowest first-byte time (a moving average).
 */
export const ROUTING_STRATEGIES = [
  'weighted_random',
  'round_robin',
  'least_in_flight',
  'lowest_latency',
] as const;

export type RoutingStrategyName = (typeof ROUTING_STRATEGIES)[number];

export const isRoutingStrategy = (value: unknown): value is RoutingStrategyName =>
  typeof value === 'string' && (ROUTING_STRATEGIES as readonly string[]).includes(value);

export type GroupRoutingStrategies = Readonly<Record<string, RoutingStrategyName>>;

/** The GroupRoutingStrategies option (JSON: group → strategy), or why it is refused. */
export const readGroupRoutingStrategies = (
  text: string,
): { ok: true; value: GroupRoutingStrategies } | { ok: false; message: string } => {
  if (text.trim() === '') return { ok: true, value: {} };
  const parsed = parseJson(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return {
      ok: false,
      message: 'GroupRoutingStrategies must be a JSON object mapping groups to strategies',
    };
  const value: Record<string, RoutingStrategyName> = {};
  for (const [group, strategy] of Object.entries(parsed as Record<string, unknown>)) {
    // A group name as a user's group column holds it (as GroupRateLimits takes it).
    if (group.length === 0 || group.length > 32)
      return {
        ok: false,
        message: `GroupRoutingStrategies: ${JSON.stringify(group)} is not a group name (1 to 32 characters)`,
      };
    if (!isRoutingStrategy(strategy))
      return {
        ok: false,
        message: `GroupRoutingStrategies: ${JSON.stringify(group)} must be one of ${ROUTING_STRATEGIES.join(', ')}`,
      };
    value[group] = strategy;
  }
  return { ok: true, value };
};
