import { describe, expect, it } from 'vitest';
import type { LimitCheck, LimitReading } from './limit-store.js';
import { rateLimitHeaders, resetText } from './rate-limit-headers.js';

const check = (key: string, rpm: number, tpm: number): LimitCheck => ({ key, rpm, tpm, concurrency: 0 });
const reading = (requests: number, tokens: number, resetMs = 0): LimitReading => ({
  requests,
  requestsResetMs: resetMs,
  tokens,
  tokensResetMs: resetMs,
  inFlight: 0,
});

describe('rateLimitHeaders', () => {
  it('names the subject with the least left for requests and for tokens, each on its own', () => {
    const headers = rateLimitHeaders(
      [check('t:1', 10, 1000), check('u:1', 100, 500)],
      [reading(8, 100, 1500), reading(8, 450, 30_000)],
      { requests: 1, tokens: 20 },
    );
    expect(headers).toEqual({
      'x-ratelimit-limit-requests': '10',
      'x-ratelimit-remaining-requests': '1',
      'x-ratelimit-reset-requests': '2s',
      'x-ratelimit-limit-tokens': '500',
      'x-ratelimit-remaining-tokens': '30',
      'x-ratelimit-reset-tokens': '30s',
    });
  });

  it('leaves out a dimension no subject limits, and says a minute for a window that only this request fills', () => {
    expect(rateLimitHeaders([check('t:1', 5, 0)], [reading(0, 0)], { requests: 1, tokens: 9 })).toEqual({
      'x-ratelimit-limit-requests': '5',
      'x-ratelimit-remaining-requests': '4',
      'x-ratelimit-reset-requests': '1m0s',
    });
  });

  it('writes resets as OpenAI does', () => {
    expect([0, 20, 999, 1000, 61_000, 3_723_000].map(resetText)).toEqual([
      '0s',
      '20ms',
      '999ms',
      '1s',
      '1m1s',
      '1h2m3s',
    ]);
  });
});
