import type { Logger } from 'pino';

export type RefusalLogCapOptions = {
  /** Access lines of refused requests written per window; the rest are counted. */
  readonly lines?: number;
  readonly windowMs?: number;
  readonly now?: () => number;
};

/**
 * Caps the relay's access lines of refused requests (4xx). A flood of made-up keys would otherwise
 * write one line per request: the disk fills, and the line cost a rejection more than any other step
 * of it. The first `lines` of each window are written as before; the rest are counted by status and
 * told in one warning when the window ends. At debug level nothing is capped, and server errors
 * (5xx) never pass through here. The metrics count every request either way.
 */
export const createRefusalLogCap = (logger: Logger, options: RefusalLogCapOptions = {}) => {
  const { lines = 20, windowMs = 10_000, now = () => performance.now() } = options;
  let windowStart = Number.NEGATIVE_INFINITY;
  let written = 0;
  const skipped = new Map<number, number>();
  let timer: NodeJS.Timeout | undefined;

  const flush = () => {
    timer = undefined;
    if (skipped.size === 0) return;
    const counts = Object.fromEntries(skipped);
    skipped.clear();
    logger.warn({ skipped: counts, windowMs }, 'access lines of refused requests skipped (too many)');
  };

  return {
    /** True when this refusal's access line is to be written. */
    admit: (status: number): boolean => {
      if (logger.isLevelEnabled('debug')) return true;
      const time = now();
      if (time - windowStart >= windowMs) {
        windowStart = time;
        written = 0;
      }
      if (written < lines) {
        written += 1;
        return true;
      }
      skipped.set(status, (skipped.get(status) ?? 0) + 1);
      if (!timer) {
        timer = setTimeout(flush, Math.max(0, windowStart + windowMs - time));
        timer.unref();
      }
      return false;
    },
    /** Tells what is counted now (at shutdown, and for tests). */
    flush: () => {
      if (timer) clearTimeout(timer);
      flush();
    },
  };
};

export type RefusalLogCap = ReturnType<typeof createRefusalLogCap>;
