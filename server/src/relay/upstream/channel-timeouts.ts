import { jsonObjectOf, timeoutSecondsOf, type ChannelTimeoutField } from '@sluice/contract/channel-config';
import type { UpstreamTimeouts } from './upstream-timeout.js';

/** Where each of a channel's config fields goes. */
const FIELDS: Readonly<Record<ChannelTimeoutField, keyof UpstreamTimeouts>> = {
  connect_timeout: 'connectMs',
  first_byte_timeout: 'firstByteMs',
  idle_timeout: 'idleMs',
};

/** A channel's row, as far as its timeouts go: one-api's `config` column (JSON text). */
export interface TimeoutSource {
  readonly config?: string | null | undefined;
}

/**
 * A channel's timeouts: each that its `config` sets (seconds, contract's channel-config.ts) in place
 * of the default, the others the defaults. A value that is not a timeout (a row written behind the
 * console's back) is the default, so a one-api row relays as it did.
 */
export const timeoutsFrom = (
  config: string | null | undefined,
  defaults: UpstreamTimeouts,
): UpstreamTimeouts => {
  const fields = jsonObjectOf(config);
  let timeouts = defaults;
  for (const field of Object.keys(FIELDS) as ChannelTimeoutField[]) {
    const seconds = timeoutSecondsOf(fields[field]);
    if (seconds === undefined || Number.isNaN(seconds)) continue;
    timeouts = { ...timeouts, [FIELDS[field]]: Math.max(1, Math.round(seconds * 1000)) };
  }
  return timeouts;
};

/**
 * The timeouts of each channel row, worked out once per row object (the routing index makes a new
 * one whenever a channel changes); a row without config has the defaults themselves.
 */
export const createChannelTimeouts = (defaults: UpstreamTimeouts) => {
  const known = new WeakMap<TimeoutSource, UpstreamTimeouts>();
  return (row: TimeoutSource): UpstreamTimeouts => {
    const config = row.config;
    if (!config || config === '{}') return defaults;
    let timeouts = known.get(row);
    if (!timeouts) {
      timeouts = timeoutsFrom(config, defaults);
      known.set(row, timeouts);
    }
    return timeouts;
  };
};
