import type { Cache } from '../cache/cache.js';

/** What changed, for the caches the relay keeps: a row of one of these kinds, or all of them. */
export type ChangeKind = 'user' | 'token' | 'channel' | 'options';

export interface Change {
  readonly kind: ChangeKind;
  /** The row's id (a user or channel id, a token key); absent means "reload every row of the kind". */
  readonly id?: number | string;
}

const TOPIC = 'changes';

/**
 * Tells this instance's listeners at once, and the other instances through the cache, that a row the
 * relay reads has changed, so the next request sees it everywhere.
 */
export const createChangeFeed = (cache: Cache) => {
  const listeners: ((change: Change) => void)[] = [];
  const dispatch = (change: Change) => {
    for (const listener of listeners) listener(change);
  };
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
      await cache.publish(TOPIC, JSON.stringify(change));
    },
  };
};

export type ChangeFeed = ReturnType<typeof createChangeFeed>;
