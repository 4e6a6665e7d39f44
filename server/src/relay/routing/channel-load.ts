/** What this instance knows of a channel's load: its requests in flight and its first-byte time. */
export interface ChannelLoad {
  /** Requests of this instance on the channel now (from the attempt's start to the answer's end). */
  inFlight: number;
  /** The moving average of its first-byte time in ms (0: not measured yet). */
  latencyMs: number;
  samples: number;
}

/** The weight of the newest first-byte time in the moving average (EWMA). */
export const LATENCY_WEIGHT = 0.2;

/** Smooth weighted round-robin's running weights of one tier, by channel id. */
export type RoundRobinState = Map<number, number>;

/** The strategies' state of one Sluice instance (in memory; never shared: in-flight counts are per instance). */
export interface StrategyState {
  readonly loads: Map<number, ChannelLoad>;
  /** Per tier (its channel ids joined), the round-robin's running weights. */
  readonly rounds: Map<string, RoundRobinState>;
}

export const createStrategyState = (): StrategyState => ({ loads: new Map(), rounds: new Map() });

export const loadOf = (state: StrategyState, channelId: number): ChannelLoad => {
  let load = state.loads.get(channelId);
  if (!load) {
    load = { inFlight: 0, latencyMs: 0, samples: 0 };
    state.loads.set(channelId, load);
  }
  return load;
};

/** Adds one first-byte time to the channel's moving average (the first sets it). */
export const observeLatency = (state: StrategyState, channelId: number, ms: number): void => {
  const load = loadOf(state, channelId);
  load.latencyMs = load.samples === 0 ? ms : load.latencyMs + LATENCY_WEIGHT * (ms - load.latencyMs);
  load.samples += 1;
};
