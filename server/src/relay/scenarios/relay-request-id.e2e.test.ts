import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { consumeLogs } from '../../test-support/relay-helpers.js';
import { testDialects } from '../../test-support/test-databases.js';

const MODEL = 'gpt-4o';

describe.each(testDialects())('x-sluice-request-id on every /v1 answer (%s)', (dialect) => {
  let fixture: RelayFixture;
  let upstream: OpenAiDouble;
  let user: RelayUser;

  const post = (path: string, body: unknown, key = user.key) =>
    fetch(`${fixture.server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer sk-${key}` },
      body: JSON.stringify(body),
    });
  /** The id under Sluice's name: present, and the same as one-api's. */
  const idOf = (response: Response) => {
    const id = response.headers.get('x-sluice-request-id');
    expect(id).toMatch(/\S+/);
    expect(id).toBe(response.headers.get('x-oneapi-request-id'));
    return id;
  };

  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    fixture = await startRelayFixture(dialect);
    await fixture.channel({ name: 'ids', base_url: upstream.url, models: MODEL });
    user = await fixture.user();
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  it('names the log row of an answer, streamed or not', async () => {
    const chat = { model: MODEL, messages: [{ role: 'user', content: 'Hello!' }] };
    const whole = await post('/v1/chat/completions', chat);
    const streamed = await post('/v1/chat/completions', { ...chat, stream: true });
    const ids = [idOf(whole), idOf(streamed)];
    await whole.text();
    await streamed.text();
    await fixture.test.sluice.idle();
    const logged = (await consumeLogs(fixture.test.sluice.database.db, user.userId)).map(
      (row) => row.request_id,
    );
    expect(logged).toEqual(ids);
  });

  it('is on refusals and on the GET routes', async () => {
    const refused = await post('/v1/chat/completions', { model: MODEL, messages: [] }, 'nosuchkey');
    expect(refused.status).toBe(401);
    idOf(refused);
    const models = await fetch(`${fixture.server.url}/v1/models`, {
      headers: { authorization: `Bearer sk-${user.key}` },
    });
    expect(models.status).toBe(200);
    idOf(models);
    const key = await fetch(`${fixture.server.url}/v1/dashboard/key`, {
      headers: { authorization: `Bearer sk-${user.key}` },
    });
    idOf(key);
  });
});
