import { createHash } from 'node:crypto';
import { channelKeysOf, disabledKeysOf, keySelectionOf } from '@sluice/contract/channel-keys';
import { jsonObjectOf } from '@sluice/contract/channel-config';
import type { ChannelMeta } from '../providers/adaptor.js';
import type { Provider } from '../providers/registry.js';
import { channelMetaOf } from './channel-meta.js';
import type { ChannelRow } from './relay-index.js';

/** The key an attempt uses: the channel as its adaptor sees it with that key, and which key it is. */
export interface PickedKey {
  readonly channel: ChannelMeta;
  readonly index: number;
  /** The key's id (a fingerprint, never the key) when the channel has several; undefined for one. */
  readonly id?: string | undefined;
}

/** Who hears which key an attempt took, and may ask for a conversation's key (call-route.ts). */
export interface KeyRoute {
  /** The key id the request's conversation is pinned to on this channel, if any. */
  pinnedKey(channelId: number): string | undefined;
  picked(channelId: number, key: PickedKey): void;
}

/** A channel of several keys, worked out once per row (the routing index replaces a row on change). */
interface KeyRing {
  readonly keys: readonly PickedKey[];
  /** Keys refused, by index: from the config's `disabled_keys`, and this instance's refusals since. */
  readonly refused: Set<number>;
  readonly random: boolean;
  cursor: number;
}

/** A key's id: the first 16 hex digits of its SHA-256 (stored in config, shown to administrators). */
export const keyIdOf = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 16);

/** One entry per row: the single key's pick (nothing to choose), or the ring of several. */
const rings = new WeakMap<ChannelRow, PickedKey | KeyRing>();

const ringOf = (row: ChannelRow, provider: Provider | undefined): PickedKey | KeyRing => {
  const channel = channelMetaOf(row, provider);
  const keys = channelKeysOf(row.type, row.key);
  if (keys.length === 1) return Object.freeze({ channel, index: 0 });
  const config = jsonObjectOf(row.config);
  const disabled = disabledKeysOf(config);
  const picks = keys.map((key, index) =>
    Object.freeze({ channel: Object.freeze({ ...channel, key }), index, id: keyIdOf(key) }),
  );
  return {
    keys: picks,
    refused: new Set(picks.filter((pick) => disabled[pick.id] !== undefined).map((pick) => pick.index)),
    random: keySelectionOf(config) === 'random',
    cursor: 0,
  };
};

const isRing = (entry: PickedKey | KeyRing): entry is KeyRing => 'keys' in entry;

/**
 * The key for one attempt on the channel. One key: the channel's meta as it is (one lookup). Several:
 * the next enabled key in turn (round-robin, the default) or one at random (config
 * `key_selection: "random"`); when every key is refused, all of them take turns, as a one-api
 * channel keeps its one key until it is disabled. A conversation pinned to one of the keys (`route`)
 * keeps it while it is enabled. `route` hears the key taken.
 */
export const pickKey = (
  row: ChannelRow,
  provider: Provider | undefined,
  route?: KeyRoute,
  random: () => number = Math.random,
): PickedKey => {
  let entry = rings.get(row);
  if (!entry) {
    entry = ringOf(row, provider);
    rings.set(row, entry);
  }
  const picked = isRing(entry) ? fromRing(entry, route?.pinnedKey(row.id), random) : entry;
  route?.picked(row.id, picked);
  return picked;
};

const fromRing = (ring: KeyRing, pinned: string | undefined, random: () => number): PickedKey => {
  const enabled =
    ring.refused.size === 0 || ring.refused.size >= ring.keys.length
      ? ring.keys
      : ring.keys.filter((pick) => !ring.refused.has(pick.index));
  if (pinned !== undefined) {
    const kept = enabled.find((pick) => pick.id === pinned);
    if (kept) return kept;
  }
  const at = ring.random ? Math.floor(random() * enabled.length) : ring.cursor++ % enabled.length;
  return enabled[Math.min(at, enabled.length - 1)] as PickedKey;
};

/**
 * Marks a key of the row refused in this instance at once (the stored state follows through the
 * change feed); answers how many of its keys are still enabled.
 */
export const refuseKey = (row: ChannelRow, index: number): number => {
  const entry = rings.get(row);
  if (!entry || !isRing(entry)) return 0;
  entry.refused.add(index);
  return entry.keys.length - entry.refused.size;
};
