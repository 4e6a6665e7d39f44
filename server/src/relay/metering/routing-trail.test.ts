import { describe, expect, it } from 'vitest';
import { relayError } from '../../lib/app-error.js';
import { attemptFailed, routingText, routingTrail } from './routing-trail.js';

/** What the log row held when the text was made by JSON.stringify of the object. */
const objectText = (strategy: string, affinity: boolean, attempts: object[]) =>
  JSON.stringify({ strategy, affinity, attempts });

describe('the routing trail in the log row', () => {
  it('is the JSON of the strategy, the affinity and the one attempt that answered', () => {
    const trail = routingTrail('weighted_random', false);
    trail.startedAt = performance.now();
    const text = routingText(trail, 12);
    const parsed = JSON.parse(text) as { attempts: { ms: number }[] };
    const ms = parsed.attempts[0]?.ms ?? -1;
    expect(ms).toBeGreaterThanOrEqual(0);
    expect(text).toBe(
      objectText('weighted_random', false, [{ channel: 12, key: 0, status: 200, reason: '', ms }]),
    );
  });

  it('lists the failed attempts first, in order, with reasons escaped as JSON escapes them', () => {
    const trail = routingTrail('least_in_flight', true);
    trail.startedAt = performance.now();
    trail.key = 2;
    attemptFailed(trail, 4, relayError(429, 'rate "limited" \u2028 ✓\n', 'too many'));
    trail.key = 0;
    attemptFailed(trail, 5, relayError(504, 'upstream_timeout', 'slow'));
    trail.key = 1;
    const text = routingText(trail, 6);
    const parsed = JSON.parse(text) as { attempts: { ms: number }[] };
    const [first, second, last] = parsed.attempts;
    expect(text).toBe(
      objectText('least_in_flight', true, [
        { channel: 4, key: 2, status: 429, reason: 'rate "limited" \u2028 ✓\n', ms: first?.ms },
        { channel: 5, key: 0, status: 504, reason: 'upstream_timeout', ms: second?.ms },
        { channel: 6, key: 1, status: 200, reason: '', ms: last?.ms },
      ]),
    );
  });

  it('writes a number that is not finite as null, as JSON.stringify does', () => {
    const trail = routingTrail('round_robin', false);
    trail.startedAt = Number.NaN;
    const text = routingText(trail, 3);
    expect(text).toBe(
      objectText('round_robin', false, [{ channel: 3, key: 0, status: 200, reason: '', ms: null }]),
    );
  });
});
