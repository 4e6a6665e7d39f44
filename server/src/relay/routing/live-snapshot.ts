import type { LiveChannel, LiveMinute, LiveModel } from '@sluice/contract/schemas/live-dashboard';
import type { MinuteCounts } from './live-counters.js';

/** The counters read for a dashboard: the minutes, oldest first, the last being the current one. */
export interface LiveWindow {
  readonly last: number;
  readonly minutes: readonly MinuteCounts[];
}

const minuteStart = (window: LiveWindow, index: number) =>
  (window.last - window.minutes.length + 1 + index) * 60;

/** Requests and tokens per minute: the gateway's (fields r, t) or a user's (`u:<id>:r`, `u:<id>:t`). */
export const minutesOf = (window: LiveWindow, userId?: number): LiveMinute[] => {
  const requests = userId === undefined ? 'r' : `u:${userId}:r`;
  const tokens = userId === undefined ? 't' : `u:${userId}:t`;
  return window.minutes.map((fields, index) => ({
    minute: minuteStart(window, index),
    requests: fields.get(requests) ?? 0,
    tokens: fields.get(tokens) ?? 0,
  }));
};

/**
 * Requests and tokens in the last 60 seconds at `nowMs`: the current minute and the share of the
 * one before that is still inside them.
 */
export const ratesOf = (minutes: readonly LiveMinute[], nowMs: number): { rpm: number; tpm: number } => {
  const current = minutes.at(-1);
  const before = minutes.at(-2);
  if (!current) return { rpm: 0, tpm: 0 };
  const left = 1 - (nowMs / 1000 - current.minute) / 60;
  const share = before ? Math.min(1, Math.max(0, left)) : 0;
  return {
    rpm: Math.round(current.requests + (before?.requests ?? 0) * share),
    tpm: Math.round(current.tokens + (before?.tokens ?? 0) * share),
  };
};

/** Sums the fields `<prefix>:<name>:<suffix>` over the window, per name (a model may hold ':'). */
const sums = (window: LiveWindow, prefix: string): Map<string, Map<string, number>> => {
  const out = new Map<string, Map<string, number>>();
  for (const fields of window.minutes)
    for (const [field, value] of fields) {
      if (!field.startsWith(prefix)) continue;
      const end = field.lastIndexOf(':');
      const name = field.slice(prefix.length, end);
      const suffix = field.slice(end + 1);
      let entry = out.get(name);
      if (!entry) {
        entry = new Map();
        out.set(name, entry);
      }
      entry.set(suffix, (entry.get(suffix) ?? 0) + value);
    }
  return out;
};

/** Per channel over the window: attempts, failed attempts, their rate, the mean first-byte time. */
export const channelsOf = (window: LiveWindow): LiveChannel[] =>
  [...sums(window, 'c:')]
    .map(([id, entry]) => {
      const ok = entry.get('ok') ?? 0;
      const errors = entry.get('err') ?? 0;
      const attempts = ok + errors;
      return {
        channel_id: Number(id),
        attempts,
        errors,
        error_rate: attempts > 0 ? errors / attempts : 0,
        first_byte_ms: ok > 0 ? Math.round((entry.get('fb') ?? 0) / ok) : null,
      };
    })
    .sort((a, b) => b.attempts - a.attempts || a.channel_id - b.channel_id);

/** Per model over the window: prompt tokens, the cached ones, cached ÷ prompt. */
export const modelsOf = (window: LiveWindow): LiveModel[] =>
  [...sums(window, 'm:')]
    .map(([model, entry]) => {
      const prompt = entry.get('p') ?? 0;
      const cached = entry.get('c') ?? 0;
      return {
        model,
        prompt_tokens: prompt,
        cached_tokens: cached,
        cache_hit_rate: prompt > 0 ? cached / prompt : null,
      };
    })
    .sort((a, b) => b.prompt_tokens - a.prompt_tokens || a.model.localeCompare(b.model));

/** What the console's live dashboards read of the counters (api/live-dashboard-routes.ts' port). */
export const liveViews = (
  counters: { read(count: number, nowMs?: number): Promise<LiveWindow> },
  minutes: number,
) => ({
  gateway: async (nowMs: number) => {
    const window = await counters.read(minutes, nowMs);
    const perMinute = minutesOf(window);
    return {
      minutes: perMinute,
      ...ratesOf(perMinute, nowMs),
      channels: channelsOf(window),
      models: modelsOf(window),
    };
  },
  user: async (userId: number, nowMs: number) => {
    const perMinute = minutesOf(await counters.read(minutes, nowMs), userId);
    return { minutes: perMinute, ...ratesOf(perMinute, nowMs) };
  },
});
