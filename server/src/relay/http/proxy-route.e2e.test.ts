import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenHandler, type Listening } from '../../test-support/listen.js';
import { startRelayFixture, type RelayFixture, type RelayUser } from '../../test-support/relay-fixture.js';
import { consumeLogs, userCounters } from '../../test-support/relay-helpers.js';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

describe('relay: /v1/oneapi/proxy/{channel id}/{path} for administrators', () => {
  let fixture: RelayFixture;
  let upstream: Listening;
  const seen: Seen[] = [];
  let channelId = 0;
  let admin: RelayUser;
  let common: RelayUser;

  beforeAll(async () => {
    upstream = await listenHandler((request, body, response) => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: body.toString(),
      });
      if (request.url?.startsWith('/v1/files')) {
        response.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'files' });
        response.end(JSON.stringify({ id: 'file-abc123', object: 'file', purpose: 'batch' }));
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"no such path"}}');
    });
    fixture = await startRelayFixture('sqlite', { MAX_REQUEST_BODY_MB: '1' });
    channelId = await fixture.channel({
      name: 'proxied',
      key: 'sk-proxied-channel-key',
      base_url: upstream.url,
      models: 'gpt-4o',
    });
    admin = await fixture.user({ quota: 1000 });
    await fixture.test.sluice.database.db
      .updateTable('users')
      .set({ role: 10 })
      .where('id', '=', admin.userId)
      .execute();
    common = await fixture.user({ quota: 1000 });
  });
  afterAll(async () => {
    await fixture?.close();
    await upstream?.close();
  });

  const proxy = (user: RelayUser, path: string, init: RequestInit = {}) =>
    fetch(`${fixture.server.url}/v1/oneapi/proxy/${path}`, {
      ...init,
      headers: { authorization: `Bearer sk-${user.key}`, ...init.headers },
    });

  it('forwards method, path, query, headers and body with the channel key, and answers as the upstream did', async () => {
    const before = seen.length;
    const answer = await proxy(admin, `${channelId}/v1/files?purpose=batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'openai-beta': 'assistants=v2' },
      body: '{"file":"data"}',
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('x-upstream')).toBe('files');
    expect(await answer.json()).toEqual({ id: 'file-abc123', object: 'file', purpose: 'batch' });
    expect(seen.slice(before)).toHaveLength(1);
    const request = seen.at(-1)!;
    expect(request).toMatchObject({
      method: 'POST',
      url: '/v1/files?purpose=batch',
      body: '{"file":"data"}',
    });
    expect(request.headers['authorization']).toBe('sk-proxied-channel-key');
    expect(request.headers['openai-beta']).toBe('assistants=v2');
    expect(request.headers['content-type']).toBe('application/json');
    // GET and the upstream's own errors pass through too.
    const missing = await proxy(admin, `${channelId}/v1/nothing`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('{"error":{"message":"no such path"}}');
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/v1/nothing' });
  });

  it('bills and logs nothing', async () => {
    await fixture.test.sluice.idle();
    expect(await consumeLogs(fixture.test.sluice.database.db, admin.userId)).toHaveLength(0);
    expect(await userCounters(fixture.test.sluice.database.db, admin.userId)).toMatchObject({
      quota: 1000,
      used_quota: 0,
    });
  });

  it('refuses a common user’s key, an unknown or disabled channel, and no key, reaching no upstream', async () => {
    const before = seen.length;
    const refused = await proxy(common, `${channelId}/v1/files`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'only an administrator’s key may use the proxy',
    );
    expect((await proxy(admin, '999999/v1/files')).status).toBe(400);
    expect((await proxy(admin, 'abc/v1/files')).status).toBe(400);
    // An id not written in plain digits is refused: the path after it could not be cut cleanly.
    expect(
      (await proxy(admin, `${encodeURIComponent(String(channelId)).replace(/\d/, (d) => `%3${d}`)}/v1/files`))
        .status,
    ).toBe(400);
    expect((await fetch(`${fixture.server.url}/v1/oneapi/proxy/${channelId}/v1/files`)).status).toBe(401);
    const disabled = await fixture.channel({ name: 'off', base_url: upstream.url, models: 'gpt-4o' });
    expect((await fixture.root.put('/api/channel/', { id: disabled, status: 2 })).body.success).toBe(true);
    expect((await proxy(admin, `${disabled}/v1/files`)).status).toBe(403);
    expect(seen.length).toBe(before);
  });

  it('refuses a body over MAX_REQUEST_BODY_MB with 413, sending nothing on', async () => {
    const before = seen.length;
    const answer = await proxy(admin, `${channelId}/v1/files`, {
      method: 'POST',
      body: Buffer.alloc(1024 * 1024 + 1, 120),
    });
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
    expect(seen.length).toBe(before);
  });
});
