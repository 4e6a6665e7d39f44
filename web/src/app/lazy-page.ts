import type { ComponentType } from 'react';

/** Spec §8: a lazy chunk that has not loaded after 120 s fails with 'Loading chunk failed'. */
export const CHUNK_TIMEOUT_MS = 120_000;
export const CHUNK_FAILED_MESSAGE = 'Loading chunk failed';

/** Races a chunk load against the timeout; the timer is cleared either way. */
export const withChunkTimeout = <T>(
  load: () => Promise<T>,
  timeoutMs: number = CHUNK_TIMEOUT_MS,
): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(CHUNK_FAILED_MESSAGE)), timeoutMs);
  });
  return Promise.race([load(), timeout]).finally(() => clearTimeout(timer));
};

/**
 * A route's `lazy` for a screen module with a named export: loads the chunk (with the timeout) and
 * hands the component to the router. A failed load reaches the route's error page.
 */
export const lazyPage =
  <K extends string>(load: () => Promise<Record<K, ComponentType>>, name: K) =>
  async (): Promise<{ Component: ComponentType }> => {
    const module = await withChunkTimeout(load);
    return { Component: module[name] };
  };
