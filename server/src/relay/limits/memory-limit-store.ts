import {
  LIMIT_WINDOW_MS,
  STALE_IN_FLIGHT_MS,
  type LimitKind,
  type LimitReading,
  type LimitStore,
} from './limit-store.js';

interface Spent {
  readonly id: string;
  readonly at: number;
  readonly tokens: number;
}

interface Windows {
  /** Times of the requests of the last minute, oldest first. */
  readonly requests: number[];
  /** Tokens of the last minute by request, oldest first. */
  spent: Spent[];
  /** Requests in flight, by id, with their start. */
  readonly inFlight: Map<string, number>;
  touched: number;
}

const SWEEP_EVERY = 1000;

/** The windows of one instance without Redis: the same verdicts as the Redis script, in a Map. */
export const createMemoryLimitStore = (): LimitStore => {
  const subjects = new Map<string, Windows>();
  let calls = 0;

  const windowsOf = (key: string, now: number): Windows => {
    let windows = subjects.get(key);
    if (!windows) {
      windows = { requests: [], spent: [], inFlight: new Map(), touched: now };
      subjects.set(key, windows);
    }
    windows.touched = now;
    const since = now - LIMIT_WINDOW_MS;
    while ((windows.requests[0] ?? Infinity) <= since) windows.requests.shift();
    if ((windows.spent[0]?.at ?? Infinity) <= since)
      windows.spent = windows.spent.filter((spent) => spent.at > since);
    for (const [id, started] of windows.inFlight)
      if (started <= now - STALE_IN_FLIGHT_MS) windows.inFlight.delete(id);
    return windows;
  };

  const sweep = (now: number) => {
    for (const [key, windows] of subjects)
      if (windows.inFlight.size === 0 && now - windows.touched > LIMIT_WINDOW_MS) subjects.delete(key);
  };

  return {
    acquire: (checks, id, estimate, now) => {
      calls += 1;
      if (calls % SWEEP_EVERY === 0) sweep(now);
      let refusedBy: LimitKind | undefined;
      let retryAfterMs = 0;
      const refuse = (kind: LimitKind, wait: number) => {
        refusedBy ??= kind;
        retryAfterMs = Math.max(retryAfterMs, wait);
      };
      const readings: LimitReading[] = [];
      for (const check of checks) {
        const windows = windowsOf(check.key, now);
        const oldest = windows.requests[0];
        const requestsResetMs = oldest === undefined ? 0 : oldest + LIMIT_WINDOW_MS - now;
        const tokens = windows.spent.reduce((sum, spent) => sum + spent.tokens, 0);
        const first = windows.spent[0];
        const tokensResetMs = first === undefined ? 0 : first.at + LIMIT_WINDOW_MS - now;
        if (check.rpm > 0 && windows.requests.length >= check.rpm) refuse('rpm', requestsResetMs);
        if (check.tpm > 0 && tokens > 0 && tokens + estimate > check.tpm) {
          // Until enough of the oldest tokens have left the window for this request's estimate.
          let left = tokens;
          let wait = 0;
          for (const spent of windows.spent) {
            left -= spent.tokens;
            wait = spent.at + LIMIT_WINDOW_MS - now;
            if (left === 0 || left + estimate <= check.tpm) break;
          }
          refuse('tpm', wait);
        }
        if (check.concurrency > 0 && windows.inFlight.size >= check.concurrency) refuse('concurrency', 1000);
        readings.push({
          requests: windows.requests.length,
          requestsResetMs,
          tokens,
          tokensResetMs,
          inFlight: windows.inFlight.size,
        });
      }
      if (refusedBy === undefined)
        for (const check of checks) {
          const windows = windowsOf(check.key, now);
          if (check.rpm > 0) windows.requests.push(now);
          if (check.tpm > 0) windows.spent.push({ id, at: now, tokens: estimate });
          if (check.concurrency > 0) windows.inFlight.set(id, now);
        }
      return Promise.resolve({ refusedBy, retryAfterMs, readings });
    },
    finish: (checks, id, tokens, release, now) => {
      for (const check of checks) {
        const windows = subjects.get(check.key);
        if (!windows) continue;
        if (tokens !== undefined && check.tpm > 0) {
          windows.spent = windows.spent.filter((spent) => spent.id !== id);
          if (tokens > 0) windows.spent.push({ id, at: now, tokens });
        }
        if (release) windows.inFlight.delete(id);
      }
      return Promise.resolve();
    },
  };
};
