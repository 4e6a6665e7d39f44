import { RATE_LIMIT_IDLE_SECONDS, type Cache } from './cache.js';

interface Window {
  hits: number[];
  touched: number;
}

const SWEEP_EVERY = 1000;

/** A single-instance cache: nothing to publish to, windows kept in a Map swept as it is used. */
export const createMemoryCache = (now: () => number = Date.now): Cache => {
  const windows = new Map<string, Window>();
  let calls = 0;

  const sweep = (at: number): void => {
    for (const [key, window] of windows) {
      if (at - window.touched > RATE_LIMIT_IDLE_SECONDS * 1000) windows.delete(key);
    }
  };

  return {
    kind: 'memory',
    publish: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    // One instance misses nothing.
    onResync: () => undefined,
    allowRequest: (key, limit, windowSeconds) => {
      const at = now();
      calls += 1;
      if (calls % SWEEP_EVERY === 0) sweep(at);
      const window = windows.get(key) ?? { hits: [], touched: at };
      windows.set(key, window);
      window.touched = at;
      if (window.hits.length < limit) {
        window.hits.push(at);
        return Promise.resolve(true);
      }
      const oldest = window.hits[0] ?? at;
      if (at - oldest < windowSeconds * 1000) return Promise.resolve(false);
      window.hits.shift();
      window.hits.push(at);
      return Promise.resolve(true);
    },
    close: () => {
      windows.clear();
      return Promise.resolve();
    },
  };
};
