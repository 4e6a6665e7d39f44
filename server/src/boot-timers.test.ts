import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from './test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from './test-support/relay-fixture.js';
import { chatBody, relayPost } from './test-support/relay-helpers.js';

/**
 * The background timers of `startTimers`, on intervals driven by fake timers (the rest of the
 * process, I/O and timeouts included, runs for real).
 */
describe('background timers: SYNC_FREQUENCY and CHANNEL_TEST_FREQUENCY', () => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    fixture = await startRelayFixture('sqlite', {
      SYNC_FREQUENCY: '5',
      CHANNEL_TEST_FREQUENCY: '2',
      STATUS_CHECK_FREQUENCY: '0',
    });
    fixture.test.sluice.startTimers();
  });
  afterEach(() => fixture.test.sluice.idle());
  afterAll(async () => {
    await fixture?.close();
    vi.useRealTimers();
    await upstream?.close();
  });
  const db = () => fixture.test.sluice.database.db;

  it('reads again every SYNC_FREQUENCY seconds a key changed behind its back', async () => {
    await fixture.channel({ name: 'sync', base_url: upstream.url, models: 'gpt-4o', group: 'sync' });
    const user = await fixture.user({ group: 'sync' });
    const chat = () => relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o'));
    expect((await chat()).status).toBe(200);
    // Disabled in the database by something that does not tell Sluice (another tool, a lost message).
    await db().updateTable('tokens').set({ status: 2 }).where('id', '=', user.tokenId).execute();
    expect((await chat()).status).toBe(200);
    vi.advanceTimersByTime(5000);
    const refused = await chat();
    expect(refused.status).toBe(401);
    expect(refused.json.error?.message).toContain('token status unavailable');
  });

  it('tests every channel every CHANNEL_TEST_FREQUENCY minutes', async () => {
    const id = await fixture.channel({ name: 'timed', base_url: upstream.url, models: 'gpt-4o' });
    const tested = async () =>
      (await db().selectFrom('channels').select('test_time').where('id', '=', id).executeTakeFirstOrThrow())
        .test_time ?? 0;
    vi.advanceTimersByTime(60_000);
    await fixture.test.sluice.idle();
    expect(await tested()).toBe(0);
    vi.advanceTimersByTime(60_000);
    await fixture.test.sluice.idle();
    expect(await tested()).toBeGreaterThan(0);
    expect(upstream.requests.at(-1)?.json).toMatchObject({ model: 'gpt-4o', max_tokens: 2 });
  });
});

describe('background timers: STATUS_CHECK_FREQUENCY', () => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    fixture = await startRelayFixture('sqlite', { SYNC_FREQUENCY: '0', STATUS_CHECK_FREQUENCY: '2' });
    fixture.test.sluice.startTimers();
  });
  afterEach(() => fixture.test.sluice.idle());
  afterAll(async () => {
    await fixture?.close();
    vi.useRealTimers();
    await upstream?.close();
  });
  const db = () => fixture.test.sluice.database.db;
  /** One interval's check, then what it started has run (its queries are real I/O). */
  const tick = async () => {
    vi.advanceTimersByTime(2000);
    await new Promise((resolve) => setTimeout(resolve, 100));
  };

  it('sees a key, a user and a channel disabled in the database behind its back within the interval', async () => {
    const channelId = await fixture.channel({
      name: 'direct',
      base_url: upstream.url,
      models: 'gpt-4o',
      group: 'direct',
    });
    const first = await fixture.user({ group: 'direct' });
    const second = await fixture.user({ group: 'direct' });
    const chat = (key: string) => relayPost(fixture, `sk-${key}`, '/v1/chat/completions', chatBody('gpt-4o'));
    expect((await chat(first.key)).status).toBe(200);
    expect((await chat(second.key)).status).toBe(200);

    await db().updateTable('tokens').set({ status: 2 }).where('id', '=', first.tokenId).execute();
    expect((await chat(first.key)).status).toBe(200);
    await tick();
    expect((await chat(first.key)).status).toBe(401);

    await db().updateTable('users').set({ status: 2 }).where('id', '=', second.userId).execute();
    await tick();
    expect((await chat(second.key)).status).toBe(403);

    const third = await fixture.user({ group: 'direct' });
    expect((await chat(third.key)).status).toBe(200);
    await db().updateTable('channels').set({ status: 2 }).where('id', '=', channelId).execute();
    expect((await chat(third.key)).status).toBe(200);
    await tick();
    expect((await chat(third.key)).status).toBe(503);
  });
});
