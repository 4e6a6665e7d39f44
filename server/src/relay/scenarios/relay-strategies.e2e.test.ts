import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { listenHandler, type Listening } from '../../test-support/listen.js';
import type { OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { chatBody, doublePool, relayPost } from '../../test-support/relay-helpers.js';

const MODEL = 'gpt-4o';
/** A thousand requests through a real Sluice take 10–30 s on a busy machine. */
const LONG = 180_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An OpenAI-format upstream that answers every chat completion after `delayMs` (its first byte then). */
const startDelayedUpstream = async (delayMs: number) => {
  let served = 0;
  const server: Listening = await listenHandler(async (_request, _body, response) => {
    served += 1;
    await sleep(delayMs);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'chatcmpl-slow',
        object: 'chat.completion',
        created: 1694268190,
        model: MODEL,
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hi.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
      }),
    );
  });
  return { ...server, served: () => served };
};

/** Runs `count` requests, `parallel` at a time; every one must succeed. */
const runMany = async (count: number, parallel: number, send: () => Promise<number>) => {
  let next = 0;
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next += 1;
        statuses.push(await send());
      }
    }),
  );
  expect(statuses.filter((status) => status !== 200)).toEqual([]);
};

describe('relay strategies inside a priority tier: distribution over 1,000 requests', () => {
  let fixture: RelayFixture;
  const doubles = doublePool();
  const closing: Listening[] = [];
  let groups = 0;

  beforeAll(async () => {
    fixture = await startRelayFixture('sqlite');
  });
  afterEach(async () => {
    await fixture.test.sluice.services.options.update('GroupRoutingStrategies', '{}');
    await doubles.closeAll();
    await Promise.all(closing.splice(0).map((server) => server.close()));
  });
  afterAll(async () => {
    await fixture?.close();
  });

  /** A fresh group with the strategy, a user in it, and channels on `urls` with `weights`. */
  const groupWith = async (strategy: string, urls: readonly string[], weights: readonly number[] = []) => {
    groups += 1;
    const group = `strategy${groups}`;
    await fixture.test.sluice.services.options.update(
      'GroupRoutingStrategies',
      JSON.stringify({ [group]: strategy }),
    );
    for (const [index, url] of urls.entries())
      await fixture.channel({
        name: `c${index}`,
        base_url: url,
        models: MODEL,
        group,
        weight: weights[index] ?? 0,
      });
    return fixture.user({ group });
  };
  const chat = (user: RelayUser, body: unknown = chatBody(MODEL)) =>
    relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', body).then((answer) => answer.status);
  const served = (double: OpenAiDouble) => double.requests.length;

  it(
    'weighted round-robin is exact: weights 1, 2, 2 serve 200, 400, 400',
    async () => {
      const upstreams = [await doubles.start(), await doubles.start(), await doubles.start()];
      const user = await groupWith(
        'round_robin',
        upstreams.map((double) => double.url),
        [1, 2, 2],
      );
      await runMany(1000, 16, () => chat(user));
      expect(upstreams.map(served)).toEqual([200, 400, 400]);
    },
    LONG,
  );

  it(
    'weighted random (the default) keeps each share within four standard deviations',
    async () => {
      const upstreams = [await doubles.start(), await doubles.start()];
      const user = await groupWith(
        'weighted_random',
        upstreams.map((double) => double.url),
        [1, 3],
      );
      await runMany(1000, 16, () => chat(user));
      const bound = 4 * Math.sqrt(1000 * 0.25 * 0.75);
      expect(served(upstreams[0] as OpenAiDouble)).toBeGreaterThan(250 - bound);
      expect(served(upstreams[0] as OpenAiDouble)).toBeLessThan(250 + bound);
      expect(served(upstreams[0] as OpenAiDouble) + served(upstreams[1] as OpenAiDouble)).toBe(1000);
    },
    LONG,
  );

  it(
    'least in flight sends most requests to the fast upstream while the slow one streams',
    async () => {
      const slow = await doubles.start();
      const fast = await doubles.start();
      // The slow upstream's streams last about 300 ms (its chunks 30 ms apart); the fast one's none.
      slow.chunkDelayMs = 30;
      const user = await groupWith('least_in_flight', [slow.url, fast.url]);
      const streamed = async () => {
        const response = await fetch(`${fixture.server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
          body: JSON.stringify(chatBody(MODEL, { stream: true })),
        });
        await response.text();
        return response.status;
      };
      await runMany(1000, 8, streamed);
      // Weighted random would give it about 500 (±63); it gets one only when it has no more in flight.
      expect(served(slow)).toBeGreaterThan(0);
      expect(served(slow)).toBeLessThan(200);
      expect(served(slow) + served(fast)).toBe(1000);
    },
    LONG,
  );

  it(
    'lowest latency sends nearly everything to the upstream with the shorter first-byte time',
    async () => {
      const slow = await startDelayedUpstream(40);
      const fast = await doubles.start();
      closing.push(slow);
      const user = await groupWith('lowest_latency', [slow.url, fast.url]);
      await runMany(1000, 1, () => chat(user));
      // At most the exploring share (5 %, half of which puts the slow one first) goes to the slow one.
      expect(slow.served()).toBeGreaterThan(0);
      expect(slow.served()).toBeLessThan(80);
      expect(served(fast)).toBeGreaterThan(920);
    },
    LONG,
  );
});
