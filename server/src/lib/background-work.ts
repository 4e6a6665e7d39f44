import type { Logger } from 'pino';

export interface BackgroundWork {
  /**
   * Background work after a response: awaited on shutdown, its failure logged, never unhandled.
   * The same promise given again (a batch of settlements, shared by its requests) is kept once.
   */
  readonly track: (work: Promise<unknown>) => void;
  /** Resolves once every piece of work tracked so far, and any tracked meanwhile, has settled. */
  readonly settled: () => Promise<void>;
}

export const createBackgroundWork = (logger: Logger): BackgroundWork => {
  const pending = new Set<Promise<unknown>>();
  const tracked = new WeakSet<Promise<unknown>>();
  return {
    track: (work) => {
      if (tracked.has(work)) return;
      tracked.add(work);
      const settled = work.then(
        () => undefined,
        (error: unknown) => logger.error({ err: error }, 'background work failed'),
      );
      pending.add(settled);
      void settled.finally(() => pending.delete(settled));
    },
    settled: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
};
