import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sluice } from '../../boot.js';
import { apiClient, type ApiClient } from '../../test-support/api-client.js';
import { listenSluice, type Listening } from '../../test-support/listen.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { chatBody } from '../../test-support/relay-helpers.js';
import { testRedisUrl } from '../../test-support/test-databases.js';

const redisUrl = testRedisUrl();

interface ListedChannel {
  readonly id: number;
  readonly breaker_state?: string;
}

// The breaker's state is keyed by channel id on the shared Redis, which other suites' instances use
// too: the channels get ids no other suite's fresh database hands out.
const FLAKY_ID = 900_000 + randomInt(90_000);
const STEADY_ID = FLAKY_ID + 1;

describe.runIf(redisUrl !== undefined)('the channel breaker across two instances sharing Redis', () => {
  let fixture: RelayFixture;
  let second: Sluice;
  let secondServer: Listening;
  let secondRoot: ApiClient;
  let flaky: OpenAiDouble;
  let steady: OpenAiDouble;
  let user: RelayUser;

  beforeAll(async () => {
    [flaky, steady] = await Promise.all([startOpenAiDouble(), startOpenAiDouble()]);
    fixture = await startRelayFixture('sqlite', { REDIS_CONN_STRING: redisUrl ?? '' });
    second = await fixture.test.boot({ REDIS_CONN_STRING: redisUrl ?? '' });
    secondServer = await listenSluice(second);
    secondRoot = apiClient(second.app);
    await secondRoot.login('root', '123456');
    const options = fixture.test.sluice.services.options;
    await options.update('RetryTimes', '1');
    await options.update('ChannelBreakerFailures', '2');
    await options.update('ChannelBreakerCooldownSeconds', '3');
    await second.services.options.reload();
    const db = fixture.test.sluice.database.db;
    for (const [name, url, id, priority] of [
      ['flaky', flaky.url, FLAKY_ID, 10],
      ['steady', steady.url, STEADY_ID, 0],
    ] as const) {
      const created = await fixture.channel({ name, base_url: url, models: 'gpt-4o', priority });
      await db.updateTable('channels').set({ id }).where('id', '=', created).execute();
      await db.updateTable('abilities').set({ channel_id: id }).where('channel_id', '=', created).execute();
    }
    fixture.test.sluice.services.changes.resync();
    second.services.changes.resync();
    user = await fixture.user();
  });
  afterAll(async () => {
    await secondServer?.close();
    await fixture?.close();
    await Promise.all([flaky?.close(), steady?.close()]);
  });

  const chat = async (url: string) =>
    (
      await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(chatBody('gpt-4o')),
      })
    ).status;
  const stateOn = async (root: ApiClient) => {
    const { body } = await root.get('/api/channel/?p=0&size=50');
    return (body.data as ListedChannel[]).find((channel) => channel.id === FLAKY_ID)?.breaker_state;
  };

  it('a channel opened on one instance is passed over on the other, and a probe on it closes both', async () => {
    flaky.failNext(2, 500);
    expect(await chat(fixture.server.url)).toBe(200);
    expect(await chat(fixture.server.url)).toBe(200);
    expect(flaky.requests).toHaveLength(2);
    expect(await stateOn(fixture.root)).toBe('open');
    // The second instance saw no failure of its own: it learns of the opening through Redis.
    await expect.poll(() => stateOn(secondRoot), { timeout: 3000 }).toBe('open');
    expect(await chat(secondServer.url)).toBe(200);
    expect(flaky.requests).toHaveLength(2);

    // After the cooldown one probe goes, from either instance, across both.
    await expect.poll(() => stateOn(secondRoot), { timeout: 8000 }).toBe('half_open');
    let release: () => void = () => undefined;
    flaky.hold = new Promise<void>((resolve) => (release = resolve));
    const probing = chat(secondServer.url);
    await expect.poll(() => flaky.requests.length, { timeout: 3000 }).toBe(3);
    // While the probe is out, the other instance passes the channel over.
    expect(await chat(fixture.server.url)).toBe(200);
    expect(flaky.requests).toHaveLength(3);
    flaky.hold = undefined;
    release();
    expect(await probing).toBe(200);
    expect(await stateOn(secondRoot)).toBe('closed');
    await expect.poll(() => stateOn(fixture.root), { timeout: 3000 }).toBe('closed');
    expect(await chat(fixture.server.url)).toBe(200);
    expect(flaky.requests).toHaveLength(4);
  });

  it('an instance started later reads the open channels from Redis', async () => {
    flaky.failNext(2, 500);
    expect(await chat(fixture.server.url)).toBe(200);
    expect(await chat(fixture.server.url)).toBe(200);
    const third = await fixture.test.boot({ REDIS_CONN_STRING: redisUrl ?? '' });
    try {
      const thirdRoot = apiClient(third.app);
      await thirdRoot.login('root', '123456');
      await expect.poll(() => stateOn(thirdRoot), { timeout: 8000 }).toMatch(/^(open|half_open)$/);
    } finally {
      await third.close();
    }
    // Healed, so that nothing of this suite stays in the shared Redis.
    await expect.poll(() => stateOn(fixture.root), { timeout: 8000 }).toBe('half_open');
    expect(await chat(fixture.server.url)).toBe(200);
    expect(await stateOn(fixture.root)).toBe('closed');
  });
});
