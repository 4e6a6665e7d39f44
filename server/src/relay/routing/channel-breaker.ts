import type { BreakerMove } from '../../services/breaker-alerts.js';
import type { RoutableChannel } from './relay-index.js';

/** The breaker's thresholds (options ChannelBreakerFailures, …WindowSeconds, …CooldownSeconds). */
export interface BreakerSettings {
  /** Failures in a row, within the window, that open a channel's breaker; 0: the breaker is off. */
  readonly failures: number;
  readonly windowMs: number;
  /** How long an open channel is passed over before one probe request may try it. */
  readonly cooldownMs: number;
}

export type BreakerState = 'closed' | 'open' | 'half_open';

/** What the channel list says of a channel's breaker. */
export interface BreakerView {
  readonly state: BreakerState;
  /** Unix seconds when the cooldown ends (open) or ended (half-open); 0 when closed. */
  readonly cooledUntil: number;
}

/** What the breaker needs of the shared cache (cache.ts `Cache`, when Redis is set). */
export interface BreakerShare {
  publish(topic: string, message: string): Promise<void>;
  subscribe(topic: string, handler: (message: string) => void): Promise<void>;
  onResync(handler: () => void): void;
  readonly runScript: (
    script: string,
    keys: readonly string[],
    args: readonly (string | number)[],
  ) => Promise<unknown>;
}

/**
 * A breaker's move as the instance that made it saw it (an opening or closing heard from another
 * instance is not one): `cooled_down` when a closed channel opens, `recovered` when a probe's
 * success closes an open or half-open one. Each transition is told once, where it happened.
 */
export type BreakerTransition = BreakerMove;

/** Orders the channels a request may try (routing/select-channel.ts's `attemptOrder`). */
export type ChannelOrder = (
  candidates: readonly RoutableChannel[],
  attempts: number,
) => readonly RoutableChannel[];

export interface ChannelBreaker {
  /**
   * The order of a request's channels without the cooling ones (open, or half-open with a probe
   * out); a channel whose cooldown ended goes first as the request's probe, an attempt added to
   * the others. All cooling: all tried, as without a breaker. A promise only when a probe is
   * claimed on the shared Redis.
   */
  route(
    candidates: readonly RoutableChannel[],
    attempts: number,
    order: ChannelOrder,
  ): readonly RoutableChannel[] | Promise<readonly RoutableChannel[]>;
  /** A failed attempt that was the channel's fault. */
  readonly failed: (channelId: number) => void;
  /** An attempt that answered. */
  readonly succeeded: (channelId: number) => void;
  readonly view: (channelId: number) => BreakerView;
}

interface Trip {
  /** Failures in a row since `firstAt` (while closed). */
  failures: number;
  firstAt: number;
  /** 0 while closed; else when the cooldown ends (epoch ms). */
  openUntil: number;
  /** A probe is out until then (epoch ms): no other goes. */
  probeUntil: number;
}

const TOPIC = 'breaker';
const STATES = 'sluice:{breaker}';
const probeKey = (channelId: number) => `sluice:{breaker}:probe:${channelId}`;
// Redis keeps the open channels (id → end of the cooldown) for instances that start later, and the
// probe's claim, so that one probe goes out across every instance.
const OPEN_SCRIPT = "redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]); redis.call('DEL', KEYS[2]); return 1";
const CLOSE_SCRIPT = "redis.call('HDEL', KEYS[1], ARGV[1]); redis.call('DEL', KEYS[2]); return 1";
const CLAIM_SCRIPT = "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])";
const LOAD_SCRIPT = "return redis.call('HGETALL', KEYS[1])";

const CLOSED: BreakerView = Object.freeze({ state: 'closed', cooledUntil: 0 });

/**
 * Each channel's breaker, in this instance's memory: `failures` failures in a row within the window
 * open it for the cooldown (the channel is passed over), then one request probes it: its success
 * closes the breaker, its failure opens it again for the cooldown. With `share` (Redis) an opening
 * and a closing reach every instance, and one probe goes out across them all; Redis away, each
 * instance goes on with what it knows (a request never fails for it).
 */
export const createChannelBreaker = (deps: {
  readonly settings: () => BreakerSettings;
  readonly now?: () => number;
  readonly share?: BreakerShare | undefined;
  readonly warn?: (error: unknown, doing: string) => void;
  /** Told each transition this instance made (the alerts); it must not throw. */
  readonly onTransition?: (move: BreakerTransition) => void;
}): ChannelBreaker => {
  const now = deps.now ?? Date.now;
  const share = deps.share;
  const warn = deps.warn ?? (() => undefined);
  const trips = new Map<number, Trip>();

  const tell = (channelId: number, openUntil: number) => {
    if (!share) return;
    const keys = [STATES, probeKey(channelId)];
    share
      .runScript(openUntil > 0 ? OPEN_SCRIPT : CLOSE_SCRIPT, keys, [channelId, openUntil])
      .then(() => share.publish(TOPIC, `${channelId} ${openUntil}`))
      .catch((error: unknown) => warn(error, 'sharing a channel breaker'));
  };

  const open = (channelId: number, trip: Trip) => {
    const wasClosed = trip.openUntil === 0;
    const failures = trip.failures;
    trip.openUntil = now() + Math.max(1000, deps.settings().cooldownMs);
    trip.probeUntil = 0;
    trip.failures = 0;
    tell(channelId, trip.openUntil);
    if (wasClosed)
      deps.onTransition?.({
        kind: 'cooled_down',
        channelId,
        failures,
        until: Math.ceil(trip.openUntil / 1000),
      });
  };

  const heard = (channelId: number, openUntil: number) => {
    if (!Number.isInteger(channelId)) return;
    if (openUntil > 0) trips.set(channelId, { failures: 0, firstAt: 0, openUntil, probeUntil: 0 });
    else trips.delete(channelId);
  };

  const load = async () => {
    if (!share) return;
    const answer = await share.runScript(LOAD_SCRIPT, [STATES], []);
    if (!Array.isArray(answer)) return;
    const values = answer as readonly unknown[];
    for (const [channelId, trip] of trips) if (trip.openUntil > 0) trips.delete(channelId);
    for (let index = 0; index + 1 < values.length; index += 2)
      heard(Number(values[index]), Number(values[index + 1]));
  };

  if (share) {
    const reload = () => load().catch((error: unknown) => warn(error, 'reading the channel breakers'));
    share
      .subscribe(TOPIC, (message) => {
        const [channelId, openUntil] = message.split(' ');
        heard(Number(channelId), Number(openUntil));
      })
      .then(reload)
      .catch((error: unknown) => warn(error, 'subscribing to the channel breakers'));
    share.onResync(() => void reload());
  }

  /** The probe claimed on Redis too: false when another instance has it out. Redis away: ours. */
  const claimShared = async (channelId: number, ttlMs: number): Promise<boolean> => {
    try {
      return (await share?.runScript(CLAIM_SCRIPT, [probeKey(channelId)], ['1', ttlMs])) === 'OK';
    } catch (error) {
      warn(error, 'claiming a channel breaker probe');
      return true;
    }
  };

  return {
    route: (candidates, attempts, order) => {
      if (trips.size === 0) return order(candidates, attempts);
      const at = now();
      let kept: RoutableChannel[] | undefined;
      let probe: RoutableChannel | undefined;
      for (let index = 0; index < candidates.length; index += 1) {
        const candidate = candidates[index] as RoutableChannel;
        const trip = trips.get(candidate.row.id);
        if (trip === undefined || trip.openUntil === 0) {
          kept?.push(candidate);
          continue;
        }
        kept ??= candidates.slice(0, index);
        if (probe === undefined && at >= trip.openUntil && at >= trip.probeUntil) probe = candidate;
      }
      if (kept === undefined) return order(candidates, attempts);
      if (probe === undefined) return order(kept.length > 0 ? kept : candidates, attempts);
      const ttlMs = Math.max(1000, deps.settings().cooldownMs);
      (trips.get(probe.row.id) as Trip).probeUntil = at + ttlMs;
      const rest = kept.length > 0 ? order(kept, attempts) : [];
      const chosen = probe;
      if (!share) return [chosen, ...rest];
      return claimShared(chosen.row.id, ttlMs).then((won) => {
        if (won) return [chosen, ...rest];
        return rest.length > 0 ? rest : order(candidates, attempts);
      });
    },
    failed: (channelId) => {
      const settings = deps.settings();
      if (settings.failures <= 0) return;
      const at = now();
      let trip = trips.get(channelId);
      if (trip === undefined) {
        trip = { failures: 0, firstAt: at, openUntil: 0, probeUntil: 0 };
        trips.set(channelId, trip);
      }
      // Open or half-open (the probe, or a request that found every channel cooling): open again.
      if (trip.openUntil > 0) return open(channelId, trip);
      if (at - trip.firstAt > settings.windowMs) {
        trip.failures = 0;
        trip.firstAt = at;
      }
      trip.failures += 1;
      if (trip.failures >= settings.failures) open(channelId, trip);
    },
    succeeded: (channelId) => {
      if (trips.size === 0) return;
      const trip = trips.get(channelId);
      if (trip === undefined) return;
      trips.delete(channelId);
      if (trip.openUntil === 0) return;
      tell(channelId, 0);
      deps.onTransition?.({ kind: 'recovered', channelId });
    },
    view: (channelId) => {
      const trip = trips.get(channelId);
      if (trip === undefined || trip.openUntil === 0) return CLOSED;
      return {
        state: now() < trip.openUntil ? 'open' : 'half_open',
        cooledUntil: Math.ceil(trip.openUntil / 1000),
      };
    },
  };
};
