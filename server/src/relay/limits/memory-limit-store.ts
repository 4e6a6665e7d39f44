import {
  LIMIT_WINDOW_MS,
  STALE_IN_FLIGHT_MS,
  type LimitKind,
  type LimitReading,
  type LimitStore,
} from './limit-store.js';
import { WindowQueue } from './window-queue.js';

interface Spent {
  readonly id: string;
  readonly at: number;
  /** 0 once the request's tokens were replaced (settled later): left in the queue, counted nowhere. */
  tokens: number;
}

interface Windows {
  /** Times of the requests of the last minute, oldest first. */
  readonly requests: WindowQueue<number>;
  /** Tokens of the last minute by request, oldest first, their sum, and each request's live entry. */
  readonly spent: WindowQueue<Spent>;
  tokens: number;
  readonly spentOf: Map<string, Spent>;
  /** Requests in flight, by id, with their start: a Map keeps them in the order they started. */
  readonly inFlight: Map<string, number>;
  touched: number;
}

const SWEEP_EVERY = 1000;

/** Drops what left the window: each entry once, so a check costs the same at any traffic. */
const rolled = (windows: Windows, now: number): Windows => {
  windows.touched = now;
  const since = now - LIMIT_WINDOW_MS;
  const { requests, spent, spentOf, inFlight } = windows;
  while ((requests.first() ?? Infinity) <= since) requests.shift();
  for (let head = spent.first(); head !== undefined; head = spent.first()) {
    if (head.at > since && head.tokens > 0) break;
    spent.shift();
    windows.tokens -= head.tokens;
    if (spentOf.get(head.id) === head) spentOf.delete(head.id);
  }
  for (const [id, started] of inFlight) {
    if (started > now - STALE_IN_FLIGHT_MS) break;
    inFlight.delete(id);
  }
  return windows;
};

/**
 * The windows of one instance without Redis: the same verdicts as the Redis script, in a Map. Each
 * window keeps its running sum and drops its oldest entries as they leave, so a check costs O(1)
 * amortised however many requests the window holds (a key at 3,000 requests a second holds 180,000).
 */
export const createMemoryLimitStore = (): LimitStore => {
  const subjects = new Map<string, Windows>();
  let calls = 0;

  const windowsOf = (key: string, now: number): Windows => {
    let windows = subjects.get(key);
    if (!windows) {
      windows = {
        requests: new WindowQueue(),
        spent: new WindowQueue(),
        tokens: 0,
        spentOf: new Map(),
        inFlight: new Map(),
        touched: now,
      };
      subjects.set(key, windows);
    }
    return rolled(windows, now);
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
      const subjectWindows: Windows[] = [];
      for (const check of checks) {
        const windows = windowsOf(check.key, now);
        subjectWindows.push(windows);
        const oldest = windows.requests.first();
        const requestsResetMs = oldest === undefined ? 0 : oldest + LIMIT_WINDOW_MS - now;
        const { tokens } = windows;
        const first = windows.spent.first();
        const tokensResetMs = first === undefined ? 0 : first.at + LIMIT_WINDOW_MS - now;
        if (check.rpm > 0 && windows.requests.size() >= check.rpm) refuse('rpm', requestsResetMs);
        if (check.tpm > 0 && tokens > 0 && tokens + estimate > check.tpm) {
          // Until enough of the oldest tokens have left the window for this request's estimate.
          let left = tokens;
          let wait = 0;
          for (const spent of windows.spent) {
            if (spent.tokens === 0) continue;
            left -= spent.tokens;
            wait = spent.at + LIMIT_WINDOW_MS - now;
            if (left === 0 || left + estimate <= check.tpm) break;
          }
          refuse('tpm', wait);
        }
        if (check.concurrency > 0 && windows.inFlight.size >= check.concurrency) refuse('concurrency', 1000);
        readings.push({
          requests: windows.requests.size(),
          requestsResetMs,
          tokens,
          tokensResetMs,
          inFlight: windows.inFlight.size,
        });
      }
      if (refusedBy === undefined)
        checks.forEach((check, index) => {
          const windows = subjectWindows[index];
          if (!windows) return;
          if (check.rpm > 0) windows.requests.push(now);
          if (check.tpm > 0) {
            const spent: Spent = { id, at: now, tokens: estimate };
            windows.spent.push(spent);
            windows.spentOf.set(id, spent);
            windows.tokens += estimate;
          }
          if (check.concurrency > 0) windows.inFlight.set(id, now);
        });
      return Promise.resolve({ refusedBy, retryAfterMs, readings });
    },
    finish: (checks, id, tokens, release, now) => {
      for (const check of checks) {
        const windows = subjects.get(check.key);
        if (!windows) continue;
        if (tokens !== undefined && check.tpm > 0) {
          const before = windows.spentOf.get(id);
          if (before) {
            windows.tokens -= before.tokens;
            before.tokens = 0;
            windows.spentOf.delete(id);
          }
          if (tokens > 0) {
            const spent: Spent = { id, at: now, tokens };
            windows.spent.push(spent);
            windows.spentOf.set(id, spent);
            windows.tokens += tokens;
          }
        }
        if (release) windows.inFlight.delete(id);
      }
      return Promise.resolve();
    },
  };
};
