import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, relayPost } from '../../test-support/relay-helpers.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { testDialects } from '../../test-support/test-databases.js';

interface ListedChannel {
  readonly id: number;
  readonly breaker_state?: string;
  readonly cooled_until?: number;
}

describe.each(testDialects())('relay: the channel breaker on %s', (dialect) => {
  let fixture: RelayFixture;
  let flaky: OpenAiDouble;
  let steady: OpenAiDouble;
  let flakyId: number;
  let steadyId: number;
  let user: RelayUser;

  beforeAll(async () => {
    [flaky, steady] = await Promise.all([startOpenAiDouble(), startOpenAiDouble()]);
    fixture = await startRelayFixture(dialect);
    const options = fixture.test.sluice.services.options;
    await options.update('RetryTimes', '1');
    await options.update('ChannelBreakerFailures', '2');
    await options.update('ChannelBreakerCooldownSeconds', '3');
    // The flaky channel is tried first (its tier is higher); the steady one answers what it cannot.
    flakyId = await fixture.channel({ name: 'flaky', base_url: flaky.url, models: 'gpt-4o', priority: 10 });
    steadyId = await fixture.channel({ name: 'steady', base_url: steady.url, models: 'gpt-4o' });
    user = await fixture.user();
  });
  afterAll(async () => {
    await fixture?.close();
    await Promise.all([flaky?.close(), steady?.close()]);
  });

  const chat = () => relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o'));
  const listed = async (id: number): Promise<ListedChannel | undefined> => {
    const { body } = await fixture.root.get('/api/channel/?p=0&size=50');
    return (body.data as ListedChannel[]).find((channel) => channel.id === id);
  };
  const searched = async (id: number): Promise<ListedChannel | undefined> => {
    const { body } = await fixture.root.get('/api/channel/search?keyword=flaky');
    return (body.data as ListedChannel[]).find((channel) => channel.id === id);
  };

  /** Two failed attempts on the flaky channel (each request answered by the steady one) open it. */
  const trip = async () => {
    flaky.failNext(2, 500);
    const before = flaky.requests.length;
    for (let count = 0; count < 2; count += 1) expect((await chat()).status).toBe(200);
    expect(flaky.requests.length - before).toBe(2);
  };

  it('passes a failing channel over once it opened, and the channel list says so', async () => {
    await trip();
    const flakyBefore = flaky.requests.length;
    const steadyBefore = steady.requests.length;
    for (let count = 0; count < 3; count += 1) expect((await chat()).status).toBe(200);
    expect(flaky.requests.length).toBe(flakyBefore);
    expect(steady.requests.length - steadyBefore).toBe(3);
    const open = await listed(flakyId);
    expect(open?.breaker_state).toBe('open');
    expect(open?.cooled_until).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect((await searched(flakyId))?.breaker_state).toBe('open');
    expect(await listed(steadyId)).toMatchObject({ breaker_state: 'closed', cooled_until: 0 });
  });

  it('heals: after the cooldown one probe goes to it, and its success closes the breaker', async () => {
    await expect
      .poll(async () => (await listed(flakyId))?.breaker_state, { timeout: 8000 })
      .toBe('half_open');
    const before = flaky.requests.length;
    expect((await chat()).status).toBe(200);
    expect(flaky.requests.length - before).toBe(1);
    expect(await listed(flakyId)).toMatchObject({ breaker_state: 'closed', cooled_until: 0 });
    // Closed: the flaky channel (the higher tier) answers every request again.
    for (let count = 0; count < 3; count += 1) expect((await chat()).status).toBe(200);
    expect(flaky.requests.length - before).toBe(4);
  });

  it('a failed probe opens it again for the cooldown; the client is answered by the next channel', async () => {
    await trip();
    await expect
      .poll(async () => (await listed(flakyId))?.breaker_state, { timeout: 8000 })
      .toBe('half_open');
    flaky.failNext(1, 503);
    const before = flaky.requests.length;
    expect((await chat()).status).toBe(200);
    expect(flaky.requests.length - before).toBe(1);
    expect((await listed(flakyId))?.breaker_state).toBe('open');
    expect((await chat()).status).toBe(200);
    expect(flaky.requests.length - before).toBe(1);
    // It heals in the end.
    await expect
      .poll(async () => (await listed(flakyId))?.breaker_state, { timeout: 8000 })
      .toBe('half_open');
    expect((await chat()).status).toBe(200);
    expect((await listed(flakyId))?.breaker_state).toBe('closed');
  });

  it('tries a cooling channel when every channel of the request is cooling', async () => {
    await fixture.test.sluice.services.options.update('ChannelBreakerCooldownSeconds', '60');
    const lone = await startOpenAiDouble();
    try {
      await fixture.channel({ name: 'lone', base_url: lone.url, models: 'gpt-4o-mini' });
      lone.failNext(2, 500);
      const mini = () =>
        relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o-mini'));
      expect((await mini()).status).toBe(500);
      expect((await mini()).status).toBe(500);
      expect((await mini()).status).toBe(200);
      expect(lone.requests).toHaveLength(3);
    } finally {
      await lone.close();
      await fixture.test.sluice.services.options.update('ChannelBreakerCooldownSeconds', '3');
    }
  });
});
