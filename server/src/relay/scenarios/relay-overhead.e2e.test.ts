import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient } from '../../test-support/api-client.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { chatBody, relayPost } from '../../test-support/relay-helpers.js';

const ROUTE = '/v1/chat/completions';
/** How long each answering upstream waits before it answers. */
const UPSTREAM_MS = 150;

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** One series of a histogram as /metrics exports it: its count and sum. */
const series = (text: string, name: string) => {
  const read = (suffix: string) => {
    const match = new RegExp(`^${name}_${suffix}\\{route="${ROUTE}"\\} (\\S+)$`, 'm').exec(text);
    return Number(match?.[1] ?? 0);
  };
  return { count: read('count'), sum: read('sum') };
};

describe("relay: Sluice's own time in /metrics, the upstreams' excluded", () => {
  let fixture: RelayFixture;
  let first: OpenAiDouble;
  let second: OpenAiDouble;
  let user: RelayUser;

  beforeAll(async () => {
    [first, second] = await Promise.all([startOpenAiDouble(), startOpenAiDouble()]);
    fixture = await startRelayFixture('sqlite');
    await fixture.test.sluice.services.options.update('RetryTimes', '1');
    await fixture.channel({ name: 'first', base_url: first.url, models: 'gpt-4o', priority: 10 });
    await fixture.channel({ name: 'second', base_url: second.url, models: 'gpt-4o' });
    user = await fixture.user();
  });
  afterAll(async () => {
    await fixture?.close();
    await Promise.all([first?.close(), second?.close()]);
  });

  const metrics = async () => (await apiClient(fixture.test.sluice.app).get('/metrics')).text;

  it('observes each answered request, whole answers and streams, without the upstream’s wait', async () => {
    const before = await metrics();
    const started = series(before, 'sluice_relay_overhead_seconds');
    for (const stream of [false, true, false, true]) {
      first.hold = sleep(UPSTREAM_MS);
      first.chunkDelayMs = stream ? 20 : 0;
      expect((await relayPost(fixture, `sk-${user.key}`, ROUTE, chatBody('gpt-4o', { stream }))).status).toBe(
        200,
      );
    }
    const after = await metrics();
    const overhead = series(after, 'sluice_relay_overhead_seconds');
    expect(overhead.count - started.count).toBe(4);
    // Each waited ≥ 150 ms on its upstream; what Sluice itself took is a small part of that.
    const own = (overhead.sum - started.sum) / 4;
    expect(own).toBeGreaterThanOrEqual(0);
    expect(own).toBeLessThan(0.1);
    expect(after).toContain('# TYPE sluice_relay_overhead_seconds histogram');
    expect(after).toMatch(
      /^sluice_relay_overhead_seconds_bucket\{route="\/v1\/chat\/completions",le="0.0001"\} /m,
    );
  });

  it('counts a failed attempt as upstream time, and a refused request not at all', async () => {
    const started = series(await metrics(), 'sluice_relay_overhead_seconds');
    first.hold = sleep(UPSTREAM_MS);
    first.failNext(1, 500);
    second.hold = sleep(2 * UPSTREAM_MS);
    const answer = await relayPost(fixture, `sk-${user.key}`, ROUTE, chatBody('gpt-4o'));
    expect(answer.status).toBe(200);
    expect(second.requests).toHaveLength(1);
    expect((await relayPost(fixture, 'sk-not-a-key', ROUTE, chatBody('gpt-4o'))).status).toBe(401);
    const overhead = series(await metrics(), 'sluice_relay_overhead_seconds');
    expect(overhead.count - started.count).toBe(1);
    expect(overhead.sum - started.sum).toBeLessThan(0.1);
  });
});
