import type { LimitCheck, LimitReading } from './limit-store.js';

/** One dimension of OpenAI's rate limit headers (requests or tokens): the tightest subject's. */
interface Gauge {
  readonly limit: number;
  readonly remaining: number;
  readonly resetMs: number;
}

/** A duration as OpenAI writes its resets: `20ms`, `1s`, `6m0s`, `1h2m3s`. */
export const resetText = (ms: number): string => {
  if (ms <= 0) return '0s';
  if (ms < 1000) return `${Math.ceil(ms)}ms`;
  const seconds = Math.ceil(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  if (hours > 0) return `${hours}h${minutes}m${rest}s`;
  return minutes > 0 ? `${minutes}m${rest}s` : `${rest}s`;
};

const tighter = (best: Gauge | undefined, next: Gauge): Gauge =>
  best === undefined || next.remaining < best.remaining ? next : best;

/**
 * The `x-ratelimit-*` headers of an answer, as OpenAI sends them: for requests and for tokens, the
 * subject (key, user or group) with the least left. `counted` is what this request added (1 request
 * and its estimate when admitted, nothing when refused).
 */
export const rateLimitHeaders = (
  checks: readonly LimitCheck[],
  readings: readonly LimitReading[],
  counted: { requests: number; tokens: number },
): Record<string, string> => {
  let requests: Gauge | undefined;
  let tokens: Gauge | undefined;
  checks.forEach((check, index) => {
    const reading = readings[index];
    if (!reading) return;
    if (check.rpm > 0)
      requests = tighter(requests, {
        limit: check.rpm,
        remaining: Math.max(0, check.rpm - reading.requests - counted.requests),
        resetMs:
          reading.requests + counted.requests > 0 && reading.requestsResetMs === 0
            ? 60_000
            : reading.requestsResetMs,
      });
    if (check.tpm > 0)
      tokens = tighter(tokens, {
        limit: check.tpm,
        remaining: Math.max(0, check.tpm - reading.tokens - counted.tokens),
        resetMs:
          reading.tokens + counted.tokens > 0 && reading.tokensResetMs === 0 ? 60_000 : reading.tokensResetMs,
      });
  });
  const headers: Record<string, string> = {};
  for (const [name, gauge] of [
    ['requests', requests],
    ['tokens', tokens],
  ] as const) {
    if (!gauge) continue;
    headers[`x-ratelimit-limit-${name}`] = String(gauge.limit);
    headers[`x-ratelimit-remaining-${name}`] = String(gauge.remaining);
    headers[`x-ratelimit-reset-${name}`] = resetText(gauge.resetMs);
  }
  return headers;
};
