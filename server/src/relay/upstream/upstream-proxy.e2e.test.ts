import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiDouble, type OpenAiDouble } from '../../test-support/openai-double.js';
import { startRelayFixture, type RelayFixture } from '../../test-support/relay-fixture.js';

/** A loopback forward proxy: takes absolute-form requests, passes them on, records what it relayed. */
const startForwardProxy = async () => {
  const seen: { url: string; authorization: string | undefined }[] = [];
  const server: Server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', authorization: request.headers['proxy-authorization'] });
    const target = new URL(request.url ?? '');
    const { 'proxy-authorization': _auth, 'proxy-connection': _connection, ...headers } = request.headers;
    const outgoing = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: request.method,
        headers,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on('error', () => response.destroy());
    request.pipe(outgoing);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  return {
    seen,
    port,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
};

describe('RELAY_PROXY: every upstream call goes through the proxy', () => {
  let upstream: OpenAiDouble;
  let proxy: Awaited<ReturnType<typeof startForwardProxy>>;
  let fixture: RelayFixture;
  beforeAll(async () => {
    upstream = await startOpenAiDouble();
    proxy = await startForwardProxy();
    fixture = await startRelayFixture('sqlite', {
      RELAY_PROXY: `http://relay:s3cret@127.0.0.1:${proxy.port}`,
    });
    await fixture.channel({ name: 'proxied', base_url: upstream.url, models: 'gpt-4o' });
  });
  afterAll(async () => {
    await fixture?.close();
    await proxy?.close();
    await upstream?.close();
  });

  it('relays a chat and a stream through the proxy, with its credentials', async () => {
    const user = await fixture.user();
    const completion = await user.sdk.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    expect(completion.choices[0]?.message.content).toBe(upstream.reply);
    const stream = await user.sdk.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(upstream.reply);
    expect(proxy.seen).toEqual([
      {
        url: `${upstream.url}/v1/chat/completions`,
        authorization: `Basic ${Buffer.from('relay:s3cret').toString('base64')}`,
      },
      {
        url: `${upstream.url}/v1/chat/completions`,
        authorization: `Basic ${Buffer.from('relay:s3cret').toString('base64')}`,
      },
    ]);
    expect(upstream.requests).toHaveLength(2);
  });
});
