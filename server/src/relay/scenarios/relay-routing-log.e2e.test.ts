import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, consumeLogs, relayPost } from '../../test-support/relay-helpers.js';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { testDialects } from '../../test-support/test-databases.js';

interface Routing {
  readonly strategy: string;
  readonly affinity: boolean;
  readonly attempts: readonly { channel: number; key: number; status: number; reason: string; ms: number }[];
}

describe.each(testDialects())('relay: the routing decision in the log row on %s', (dialect) => {
  let fixture: RelayFixture;
  let first: OpenAiDouble;
  let second: OpenAiDouble;
  let firstId: number;
  let secondId: number;
  let user: RelayUser;

  beforeAll(async () => {
    [first, second] = await Promise.all([startOpenAiDouble(), startOpenAiDouble()]);
    fixture = await startRelayFixture(dialect);
    await fixture.test.sluice.services.options.update('RetryTimes', '2');
    // The first channel's tier is tried first; its second key answers the request after the first's 500.
    firstId = await fixture.channel({
      name: 'first',
      base_url: first.url,
      models: 'gpt-4o',
      priority: 10,
    });
    secondId = await fixture.channel({ name: 'second', base_url: second.url, models: 'gpt-4o' });
    user = await fixture.user();
  });
  afterAll(async () => {
    await fixture?.close();
    await Promise.all([first?.close(), second?.close()]);
  });

  const chat = (stream = false) =>
    relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o', { stream }));
  const lastRouting = async (): Promise<Routing> => {
    await fixture.test.sluice.idle();
    const rows = await consumeLogs(fixture.test.sluice.database.db, user.userId);
    return JSON.parse(rows.at(-1)?.routing ?? 'null') as Routing;
  };

  it('records both attempts of a request that failed over, in order, with the strategy', async () => {
    first.failNext(1, 500);
    expect((await chat()).status).toBe(200);
    const routing = await lastRouting();
    expect(routing).toMatchObject({
      strategy: 'weighted_random',
      affinity: false,
      attempts: [
        { channel: firstId, key: 0, status: 500 },
        { channel: secondId, key: 0, status: 200, reason: '' },
      ],
    });
    expect(routing.attempts[0]?.reason).not.toBe('');
    for (const attempt of routing.attempts) expect(attempt.ms).toBeGreaterThanOrEqual(0);
    // The console reads it from the log list, parsed.
    const { body } = await fixture.root.get(`/api/log/?p=0&username=&channel=${secondId}`);
    const listed = (body.data as { routing?: Routing }[])[0];
    expect(listed?.routing).toEqual(routing);
  });

  it('records one attempt of a streamed request answered at once', async () => {
    const answer = await chat(true);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('[DONE]');
    expect((await lastRouting()).attempts).toMatchObject([{ channel: firstId, status: 200 }]);
  });

  it('records the key a channel of several took', async () => {
    // Created with one key (a batch makes a channel per line), then given two.
    const keys = await fixture.channel({ name: 'keys', base_url: second.url, models: 'gpt-4o-mini' });
    const edited = await fixture.root.put('/api/channel/', {
      id: keys,
      key: 'sk-upstream-key-one-000000000\nsk-upstream-key-two-000000000',
    });
    expect(edited.body.success).toBe(true);
    const mini = () => relayPost(fixture, `sk-${user.key}`, '/v1/chat/completions', chatBody('gpt-4o-mini'));
    const taken: number[] = [];
    for (let turn = 0; turn < 2; turn += 1) {
      expect((await mini()).status).toBe(200);
      const routing = await lastRouting();
      expect(routing.attempts).toHaveLength(1);
      expect(routing.attempts[0]?.channel).toBe(keys);
      taken.push(routing.attempts[0]?.key ?? -1);
    }
    expect(taken.sort()).toEqual([0, 1]);
  });
});
