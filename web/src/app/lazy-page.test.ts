// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHUNK_TIMEOUT_MS, lazyPage, withChunkTimeout } from './lazy-page.js';

describe('lazy screens', () => {
  afterEach(() => vi.useRealTimers());

  it("fail with 'Loading chunk failed' when the chunk has not loaded after 120 s", async () => {
    vi.useFakeTimers();
    expect(CHUNK_TIMEOUT_MS).toBe(120_000);
    const pending = withChunkTimeout(() => new Promise<never>(() => undefined));
    const outcome = expect(pending).rejects.toThrow('Loading chunk failed');
    await vi.advanceTimersByTimeAsync(119_999);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
  });

  it('hand the named component to the router', async () => {
    const Screen = () => null;
    await expect(lazyPage(() => Promise.resolve({ Screen }), 'Screen')()).resolves.toEqual({
      Component: Screen,
    });
  });
});
