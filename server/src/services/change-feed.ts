import type { Logger } from 'pino';
import type { Cache } from '../cache/cache.js';

/** What changed, for the caches the relay keeps: a row of one of these kinds, or all of them. */
export type ChangeKind = 'user' | 'token' | 'channel' | 'options';

export interface Change {
  readonly kind: ChangeKind;
  /** The row's id (a user or channel id, a token key); absent means "reload every row of the kind". */
  readonly id?: number | string;
}

const TOPIC = 'changes';

/** Every kind of row the relay keeps in memory, as "reload every row of the kind". */
const EVERYTHING: readonly Change[] = [{ kind: 'user' }, { kind: 'token' }, { kind: 'channel' }];

/**
 * Tells this instance's listeners at once, and the other instances through the cache, that a row the
 * relay reads has changed, so the next request sees it everywhere. The write it follows is committed:
 * a broadcast that fails is logged, never answered as a failed write. What another instance misses
 * that way (or while its subscription was down) it reads again on `resync`: when the subscription
 * comes back, and every SYNC_FREQUENCY seconds.
 */
export const createChangeFeed = (cache: Cache, logger: Logger) => {
  const listeners: ((change: Change) => void)[] = [];
  const dispatch = (change: Change) => {
    for (const listener of listeners) listener(change);
  };
  const resync = () => {
    for (const change of EVERYTHING) dispatch(change);
  };
  cache.onResync(resync);
  const ready = cache.subscribe(TOPIC, (message) => {
    try {
      dispatch(JSON.parse(message) as Change);
    } catch {
      // a malformed message from another instance is dropped
    }
  });
  return {
    ready,
    on: (listener: (change: Change) => void): void => {
      listeners.push(listener);
    },
    emit: async (change: Change): Promise<void> => {
      dispatch(change);
      try {
        await cache.publish(TOPIC, JSON.stringify(change));
      } catch (error) {
        logger.error({ err: error, change }, 'change broadcast failed: other instances catch up on resync');
      }
    },
    /** Drops every row kept in memory on this instance: the next request reads them again. */
    resync,
  };
};

export type ChangeFeed = ReturnType<typeof createChangeFeed>;
