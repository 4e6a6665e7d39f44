import type { LimitCheck, LimitReading } from './limit-store.js';

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

/**
 * The `x-ratelimit-*` headers of an answer, as OpenAI sends them: for requests and for tokens, the
 * subject (key, user or group) with the least left. `counted` is what this request added (1 request
 * and its estimate when admitted, nothing when refused). On every limited answer: plain loops, no
 * objects but the headers.
 */
export const rateLimitHeaders = (
  checks: readonly LimitCheck[],
  readings: readonly LimitReading[],
  counted: { requests: number; tokens: number },
): Record<string, string> => {
  let requests = -1;
  let requestsLimit = 0;
  let requestsReset = 0;
  let tokens = -1;
  let tokensLimit = 0;
  let tokensReset = 0;
  for (let index = 0; index < checks.length; index += 1) {
    const check = checks[index];
    const reading = readings[index];
    if (!check || !reading) continue;
    if (check.rpm > 0) {
      const remaining = Math.max(0, check.rpm - reading.requests - counted.requests);
      if (requests < 0 || remaining < requests) {
        requests = remaining;
        requestsLimit = check.rpm;
        requestsReset =
          reading.requests + counted.requests > 0 && reading.requestsResetMs === 0
            ? 60_000
            : reading.requestsResetMs;
      }
    }
    if (check.tpm > 0) {
      const remaining = Math.max(0, check.tpm - reading.tokens - counted.tokens);
      if (tokens < 0 || remaining < tokens) {
        tokens = remaining;
        tokensLimit = check.tpm;
        tokensReset =
          reading.tokens + counted.tokens > 0 && reading.tokensResetMs === 0 ? 60_000 : reading.tokensResetMs;
      }
    }
  }
  const headers: Record<string, string> = {};
  if (requests >= 0) {
    headers['x-ratelimit-limit-requests'] = String(requestsLimit);
    headers['x-ratelimit-remaining-requests'] = String(requests);
    headers['x-ratelimit-reset-requests'] = resetText(requestsReset);
  }
  if (tokens >= 0) {
    headers['x-ratelimit-limit-tokens'] = String(tokensLimit);
    headers['x-ratelimit-remaining-tokens'] = String(tokens);
    headers['x-ratelimit-reset-tokens'] = resetText(tokensReset);
  }
  return headers;
};
